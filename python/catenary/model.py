"""Models built in code with the case format's own generators: each method adds one entry of a
case file's model (docs/case-format.md names every field; extra keyword arguments pass through as
fields), and case() makes the Case. The case loader checks the result as it checks a file.

    m = catenary.model.Model(dimension=3, gravity=[0, 0, -9.81])
    m.material("polymer", youngs_modulus=2e9, density=7800)
    m.section("rod", shape="circle", diameter=0.02)
    m.straight_cable("cable", start=[0, 0, 0], end=[1, 0, 0], elements=10, material="polymer", section="rod")
    m.constraint("spherical", name="pin", node={"body": "cable", "index": "start"})
    case = m.case("pendulum", analysis={"type": "dynamic", "end_time": 1, "step": 1e-3})
"""
from . import Case


class Model:
    def __init__(self, dimension=3, gravity=None, **fields):
        self.document = {"dimension": dimension, **fields}
        if gravity is not None:
            self.document["gravity"] = list(gravity)

    def _add(self, key, entry):
        self.document.setdefault(key, []).append(entry)
        return self

    def material(self, name, **fields):
        self.document.setdefault("materials", {})[name] = fields
        return self

    def section(self, name, **fields):
        self.document.setdefault("sections", {})[name] = fields
        return self

    def straight_cable(self, name, start, end, elements, material, section, element="cable3d", **fields):
        return self._add("bodies", {"name": name, "element": element, "generator": "straight", "start": list(start),
                                    "end": list(end), "elements": elements, "material": material,
                                    "section": section, **fields})

    def arc_cable(self, name, centre, radius, start_angle, end_angle, elements, material, section,
                  element="cable3d", **fields):
        return self._add("bodies", {"name": name, "element": element, "generator": "arc", "centre": list(centre),
                                    "radius": radius, "start_angle": start_angle, "end_angle": end_angle,
                                    "elements": elements, "material": material, "section": section, **fields})

    def constraint(self, type, **fields):
        return self._add("constraints", {"type": type, **fields})

    def load(self, type, **fields):
        return self._add("loads", {"type": type, **fields})

    def rigid_body(self, name, mass, inertia, position, **fields):
        return self._add("rigid_bodies", {"name": name, "mass": mass, "inertia": list(inertia),
                                          "position": list(position), **fields})

    def joint(self, type, name, body_i, body_j, **fields):
        return self._add("joints", {"type": type, "name": name, "body_i": body_i, "body_j": body_j, **fields})

    def attachment(self, name, node, rigid_body, **fields):
        return self._add("attachments", {"name": name, "node": node, "rigid_body": rigid_body, **fields})

    def contact(self, name, type, **fields):
        return self._add("contacts", {"name": name, "type": type, **fields})

    def case(self, name, analysis, output=None, path=None, **fields):
        document = {"name": name, "model": self.document, "analysis": analysis, **fields}
        if output is not None:
            document["output"] = output
        return Case(document, path or f"{name}.json")
