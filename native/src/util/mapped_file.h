#pragma once
#include <cstddef>
#include <string>

namespace saccade {

// Model files come from any folder a user points at: only regular files are opened (a FIFO named
// model.safetensors would block the open forever), and a text file is read only as far as what it can sensibly
// be. That bound is on the bytes a read gives, not on the size stat reports: /proc and /sys files report 0 or
// 4096 bytes whatever they hold, and a file may grow while it is read.
constexpr size_t kMaxConfigBytes = size_t(1) << 20;      // config.json and the other *_config.json
constexpr size_t kMaxTokenizerBytes = size_t(64) << 20;  // tokenizer.json: a large BPE vocabulary is ~20 MB

// Read-only memory map of a whole regular file; unmapped on destruction.
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

// The whole of a regular file of at most max_bytes.
std::string read_text_file(const std::string& path, size_t max_bytes);

// Whether something is at path, asked without opening it (opening a FIFO waits for a writer).
bool path_exists(const std::string& path);

}  // namespace saccade
