#pragma once
#include <cstddef>
#include <string>

namespace saccade {

// Read-only memory map of a whole file; unmapped on destruction.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const unsigned char* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  const unsigned char* data_ = nullptr;
  size_t size_ = 0;
};

std::string read_text_file(const std::string& path);

}  // namespace saccade
