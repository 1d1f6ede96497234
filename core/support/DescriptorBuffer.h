// An ostream's buffer over a file descriptor that keeps the reason of the first failed write:
// std::ostream says only that a write failed, and stdio has forgotten why by the time it is
// flushed (errno is long overwritten), while "No space left on device" is what users need.
#pragma once

#include <array>
#include <cerrno>
#include <streambuf>
#include <unistd.h>

namespace btforge {

class DescriptorBuffer final : public std::streambuf {
public:
    // `owned`: close() closes `fd`.
    explicit DescriptorBuffer(int fd, bool owned = true) : fd_(fd), owned_(owned) {
        setp(buffer_.data(), buffer_.data() + buffer_.size());
    }
    ~DescriptorBuffer() override { close(); }
    DescriptorBuffer(const DescriptorBuffer&) = delete;
    DescriptorBuffer& operator=(const DescriptorBuffer&) = delete;

    bool failed() const { return error_ != 0; }
    // errno of the first failed write or close, 0 if none failed.
    int error() const { return error_; }
    int fd() const { return fd_; }
    bool close() {
        bool ok = drain();
        if (owned_ && fd_ >= 0 && ::close(fd_) != 0 && error_ == 0)
            error_ = errno ? errno : EIO;
        fd_ = -1;
        return ok && error_ == 0;
    }

protected:
    int_type overflow(int_type c) override {
        if (!drain())
            return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof()))
            sputc(traits_type::to_char_type(c));
        return traits_type::not_eof(c);
    }
    int sync() override { return drain() ? 0 : -1; }

private:
    bool drain() {
        for (const char* p = pbase(); p < pptr() && error_ == 0;) {
            ssize_t n = fd_ < 0 ? -1 : ::write(fd_, p, static_cast<size_t>(pptr() - p));
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                error_ = fd_ < 0 ? EBADF : errno;
            else if (n == 0)
                error_ = EIO;
            else
                p += n;
        }
        setp(buffer_.data(), buffer_.data() + buffer_.size());
        return error_ == 0;
    }

    int fd_;
    bool owned_;
    int error_ = 0;
    std::array<char, 1 << 16> buffer_;
};

} // namespace btforge
