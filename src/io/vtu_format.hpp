#pragma once
// The VTK XML file layout of one unstructured-grid piece (a .vtu file): its arrays written as
// text (format="ascii"), as raw bytes after the XML (<AppendedData encoding="raw">, each array a
// UInt64 byte count and its bytes), or as those bytes compressed with zlib in VTK's blocks
// (compressor="vtkZLibDataCompressor": a UInt64 header of the block count, the uncompressed block
// size, the last block's uncompressed size (0: a whole block) and each block's compressed size,
// then the compressed blocks). Numbers are in the host's byte order, which the file names.
#include <cstdint>
#include <string>
#include <vector>

#include "catenary/model/case.hpp"
#include "output_file.hpp"

namespace catenary {

// One DataArray: its values as the bytes of `type` ("Float64", "Int32" or "UInt8").
struct VtuArray {
  std::string type, name;
  int components = 1;
  std::string bytes;
};

VtuArray vtu_array(const std::string& name, int components, const std::vector<double>& values);
VtuArray vtu_array(const std::string& name, const std::vector<std::int32_t>& values);
VtuArray vtu_array(const std::string& name, const std::vector<std::uint8_t>& values);

// One piece's arrays: point data (the first two named as the default vectors and scalars), cell
// data (the first as the default scalars), the points (Float64, 3 components) and the cells'
// connectivity, offsets and types.
struct VtuPiece {
  int point_count = 0, cell_count = 0;
  std::vector<VtuArray> point_data, cell_data;
  VtuArray points, connectivity, offsets, types;
};

// Adds the whole .vtu file to f.
void write_vtu_piece(OutputFile& f, const VtuPiece& piece, VtuEncoding encoding);

// A ParaView collection (.pvd) of frame files by time: its opening lines, one frame's entry, and
// its closing lines.
std::string pvd_start();
std::string pvd_entry(double time, const std::string& file);
inline constexpr char kPvdEnd[] = "  </Collection>\n</VTKFile>\n";

}  // namespace catenary
