#include "util/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/error.h"

namespace saccade {

namespace {
// Opens a regular file for reading, and gives its size. O_NONBLOCK: opening a FIFO returns at once instead of
// waiting for a writer, and fstat then refuses it.
int open_regular(const std::string& path, size_t* size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw EngineError("cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    throw EngineError("cannot stat " + path);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw EngineError(path + ": not a regular file");
  }
  *size = static_cast<size_t>(st.st_size);
  return fd;
}
}  // namespace

MappedFile::MappedFile(const std::string& path) {
  const int fd = open_regular(path, &size_);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      ::close(fd);
      throw EngineError("cannot map " + path + ": " + std::strerror(errno));
    }
    data_ = static_cast<const unsigned char*>(p);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<unsigned char*>(data_), size_);
}

std::string read_text_file(const std::string& path, size_t max_bytes) {
  size_t size = 0;
  const int fd = open_regular(path, &size);
  if (size > max_bytes) {
    ::close(fd);
    throw EngineError(path + " is " + std::to_string(size) + " bytes, more than such a file can be (" +
                      std::to_string(max_bytes) + ")");
  }
  // Room for the size reported and one byte more, which shows a file that holds more than it says; past that
  // the text doubles, up to a step past the bound. Steps of 64 KB at least: /proc/self/pagemap refuses reads
  // that are not a multiple of 8 bytes.
  constexpr size_t kStep = size_t(1) << 16;
  std::string text(std::max(size + 1, kStep), '\0');
  size_t got = 0;
  for (;;) {
    if (got == text.size()) {
      if (got > max_bytes) break;
      text.resize(std::min(2 * got, max_bytes + kStep));
    }
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      throw EngineError("cannot read " + path + ": " + std::strerror(err));
    }
    if (n == 0) break;
    got += size_t(n);
  }
  ::close(fd);
  if (got > max_bytes)
    throw EngineError(path + " holds more than " + std::to_string(max_bytes) +
                      " bytes, whatever size it reports: more than such a file can be");
  text.resize(got);
  return text;
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace saccade
