#include "util/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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
  std::string text(size, '\0');
  size_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(fd, text.data() + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += size_t(n);
  }
  ::close(fd);
  text.resize(got);
  return text;
}

}  // namespace saccade
