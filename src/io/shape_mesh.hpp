#pragma once
// The surfaces of rigid bodies' contact shapes (multibody/rigid_contact.hpp) as triangles and
// quads in a body's current pose, for the VTU frames.
//
// A sphere, capsule or cylinder is a surface of revolution about its frame's h axis: a profile
// from the top pole to the bottom pole, each profile point off the axis a ring of `segments`
// points, the poles one point each. Neighbouring rings are joined by quads, a pole and a ring by
// a fan of triangles. The sphere's profile has `rings` bands of equal angle pole to pole; the
// capsule's is the sphere's cut at the equator and its halves moved apart by its length (a
// cylinder side between them); the cylinder's is its two end discs and its side. A box is its
// six faces as quads. Every face lists its points counter-clockwise seen from outside the solid,
// so that its right-hand normal points outward.
//
// The points lie on the exact surface, so the polyhedron lies inside it: its volume falls short
// by about (2 pi / segments)^2 / 6 around the axis plus the profile's chord error, with the default
// resolution 2.6 % for a cylinder, 4.0 % for a capsule as long as its diameter and 6.3 % for a sphere.
#include <vector>

#include "catenary/multibody/rigid_contact.hpp"
#include "catenary/rigid/constraint_primitives.hpp"

namespace catenary {

constexpr int kShapeSegments = 16;  // points around a ring
constexpr int kShapeRings = 8;      // a sphere's bands pole to pole (a capsule's hemispheres half each)

// Points (ground frame) with their velocities, and faces as runs of point indices: face k is
// connectivity[face_ends[k - 1] .. face_ends[k]) (from 0 for k = 0), 3 or 4 points.
struct SurfaceMesh {
  std::vector<Vec<3>> points, velocities;
  std::vector<int> connectivity, face_ends;
  int point_count() const { return static_cast<int>(points.size()); }
  int face_count() const { return static_cast<int>(face_ends.size()); }
};

// Appends shape's surface at the body's state: a point x at r + A(p / |p|) x' with the velocity
// r' + omega x (x - r). segments >= 3; rings even (a capsule splits them between its hemispheres)
// and >= 2 (std::invalid_argument otherwise).
void add_shape_surface(const RigidShape& shape, const rigid::BodyState& body, SurfaceMesh& out,
                       int segments = kShapeSegments, int rings = kShapeRings);

}  // namespace catenary
