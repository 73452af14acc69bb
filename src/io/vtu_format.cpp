#include "vtu_format.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "text_output.hpp"

namespace catenary {

namespace {

// VTK's own uncompressed block size, and zlib's fastest level: zlib's default level makes a frame
// 1 % smaller and takes twice as long to compress it (docs/performance.md, "Output frames").
constexpr std::uint64_t kBlockSize = 32768;
constexpr int kZlibLevel = Z_BEST_SPEED;

template <class T>
VtuArray array_of(const char* type, const std::string& name, int components, const std::vector<T>& values) {
  VtuArray a{type, name, components, std::string(values.size() * sizeof(T), '\0')};
  if (!values.empty()) std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
  return a;
}

template <class T>
T value_at(const std::string& bytes, size_t index) {
  T x;
  std::memcpy(&x, bytes.data() + index * sizeof(T), sizeof(T));
  return x;
}

// The array's values as text, `components` a line.
std::string ascii_values(const VtuArray& a) {
  const size_t size = a.type == "Float64" ? 8 : a.type == "Int32" ? 4 : 1, count = a.bytes.size() / size;
  std::string text, line;
  for (size_t i = 0; i < count; i += a.components) {
    line = "         ";
    for (size_t k = i; k < i + a.components; ++k) {
      line += ' ';
      line += size == 8   ? number(value_at<double>(a.bytes, k))
              : size == 4 ? std::to_string(value_at<std::int32_t>(a.bytes, k))
                          : std::to_string(value_at<std::uint8_t>(a.bytes, k));
    }
    text += line + '\n';
  }
  return text;
}

void append_uint64(std::string& out, std::uint64_t x) { out.append(reinterpret_cast<const char*>(&x), sizeof x); }

// The bytes as VTK's appended raw data: their count, then themselves.
std::string raw_block(const std::string& bytes) {
  std::string out;
  append_uint64(out, bytes.size());
  return out + bytes;
}

// The bytes as VTK's zlib-compressed blocks, each block compressed on its own.
std::string compressed_blocks(const std::string& bytes) {
  const std::uint64_t size = bytes.size(), blocks = (size + kBlockSize - 1) / kBlockSize;
  std::string header, data;
  append_uint64(header, blocks);
  append_uint64(header, kBlockSize);
  append_uint64(header, size % kBlockSize);
  std::string block;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const std::uint64_t begin = b * kBlockSize, length = std::min(kBlockSize, size - begin);
    uLongf compressed = compressBound(length);
    block.resize(compressed);
    if (compress2(reinterpret_cast<Bytef*>(block.data()), &compressed,
                  reinterpret_cast<const Bytef*>(bytes.data() + begin), length, kZlibLevel) != Z_OK)
      throw std::runtime_error("zlib could not compress a VTU array");
    append_uint64(header, compressed);
    data.append(block.data(), compressed);
  }
  return header + data;
}

bool host_is_little_endian() {
  const std::uint16_t one = 1;
  unsigned char first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

// Writes the DataArrays' XML and gathers their appended data (binary and compressed).
class ArrayWriter {
 public:
  ArrayWriter(OutputFile& f, VtuEncoding encoding) : f_(f), encoding_(encoding) {}

  void write(const VtuArray& a) {
    std::string open = "        <DataArray type=\"" + a.type + "\" Name=\"" + a.name + "\"";
    if (a.components != 1) open += " NumberOfComponents=\"" + std::to_string(a.components) + "\"";
    if (encoding_ == VtuEncoding::ascii) {
      f_.add(open + " format=\"ascii\">\n" + ascii_values(a) + "        </DataArray>\n");
      return;
    }
    f_.add(open + " format=\"appended\" offset=\"" + std::to_string(appended_.size()) + "\"/>\n");
    appended_ += encoding_ == VtuEncoding::binary ? raw_block(a.bytes) : compressed_blocks(a.bytes);
  }
  const std::string& appended() const { return appended_; }

 private:
  OutputFile& f_;
  VtuEncoding encoding_;
  std::string appended_;
};

}  // namespace

VtuArray vtu_array(const std::string& name, int components, const std::vector<double>& values) {
  return array_of("Float64", name, components, values);
}
VtuArray vtu_array(const std::string& name, const std::vector<std::int32_t>& values) {
  return array_of("Int32", name, 1, values);
}
VtuArray vtu_array(const std::string& name, const std::vector<std::uint8_t>& values) {
  return array_of("UInt8", name, 1, values);
}

void write_vtu_piece(OutputFile& f, const VtuPiece& piece, VtuEncoding encoding) {
  std::string head = "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"";
  head += host_is_little_endian() ? "LittleEndian\"" : "BigEndian\"";
  if (encoding != VtuEncoding::ascii) head += " header_type=\"UInt64\"";
  if (encoding == VtuEncoding::compressed) head += " compressor=\"vtkZLibDataCompressor\"";
  f.add(head + ">\n  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"" + std::to_string(piece.point_count) +
        "\" NumberOfCells=\"" + std::to_string(piece.cell_count) + "\">\n");
  ArrayWriter arrays(f, encoding);
  std::string point_data = "      <PointData";
  if (piece.point_data.size() > 0) point_data += " Vectors=\"" + piece.point_data[0].name + "\"";
  if (piece.point_data.size() > 1) point_data += " Scalars=\"" + piece.point_data[1].name + "\"";
  f.add(point_data + ">\n");
  for (const VtuArray& a : piece.point_data) arrays.write(a);
  f.add("      </PointData>\n      <CellData" +
        (piece.cell_data.empty() ? std::string() : " Scalars=\"" + piece.cell_data[0].name + "\"") + ">\n");
  for (const VtuArray& a : piece.cell_data) arrays.write(a);
  f.add("      </CellData>\n      <Points>\n");
  arrays.write(piece.points);
  f.add("      </Points>\n      <Cells>\n");
  for (const VtuArray* a : {&piece.connectivity, &piece.offsets, &piece.types}) arrays.write(*a);
  f.add("      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n");
  if (encoding != VtuEncoding::ascii) {
    f.add("  <AppendedData encoding=\"raw\">\n   _");
    f.add(arrays.appended());
    f.add("\n  </AppendedData>\n");
  }
  f.add("</VTKFile>\n");
}

std::string pvd_start() {
  return "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
         "  <Collection>\n";
}

std::string pvd_entry(double time, const std::string& file) {
  return "    <DataSet timestep=\"" + number(time) + "\" group=\"\" part=\"0\" file=\"" + file + "\"/>\n";
}

}  // namespace catenary
