// Errors that carry their context (file, byte offset, DIE) up to the one line the user reads.
#pragma once

#include <cassert>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace btforge {

// Exit status classes the CLI maps errors to.
enum class ErrorKind : uint8_t {
    BadInput = 1, // malformed or unsupported input data
    Usage = 2,    // the user asked for something that cannot be done
    Io = 3,       // the system refused (open, write, rename)
};

class Error {
public:
    Error(ErrorKind kind, std::string message) : kind_(kind), message_(std::move(message)) {}

    static Error badInput(std::string message) { return {ErrorKind::BadInput, std::move(message)}; }
    static Error usage(std::string message) { return {ErrorKind::Usage, std::move(message)}; }
    static Error io(std::string message) { return {ErrorKind::Io, std::move(message)}; }

    ErrorKind kind() const { return kind_; }
    const std::string& message() const { return message_; }

private:
    ErrorKind kind_;
    std::string message_;
};

// A value or the error that prevented it; a small stand-in for C++23 std::expected.
template <typename T> class [[nodiscard]] Expected {
public:
    Expected(T value) : state_(std::in_place_index<0>, std::move(value)) {}
    Expected(Error error) : state_(std::in_place_index<1>, std::move(error)) {}

    explicit operator bool() const { return state_.index() == 0; }
    bool hasValue() const { return state_.index() == 0; }

    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T&& operator*() && { return std::move(value()); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    T& value() & {
        assert(hasValue());
        return std::get<0>(state_);
    }
    const T& value() const& {
        assert(hasValue());
        return std::get<0>(state_);
    }
    T&& value() && {
        assert(hasValue());
        return std::get<0>(std::move(state_));
    }
    Error& error() & {
        assert(!hasValue());
        return std::get<1>(state_);
    }
    const Error& error() const& {
        assert(!hasValue());
        return std::get<1>(state_);
    }
    Error&& error() && {
        assert(!hasValue());
        return std::get<1>(std::move(state_));
    }

private:
    std::variant<T, Error> state_;
};

// Success or an error, for operations that produce nothing.
template <> class [[nodiscard]] Expected<void> {
public:
    Expected() = default;
    Expected(Error error) : error_(std::move(error)) {}

    explicit operator bool() const { return !error_; }
    bool hasValue() const { return !error_; }
    Error& error() & { return *error_; }
    const Error& error() const& { return *error_; }
    Error&& error() && { return std::move(*error_); }

private:
    std::optional<Error> error_;
};

} // namespace btforge
