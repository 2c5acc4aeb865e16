// SmallVec<T, N>: a std::vector-like array of trivially copyable T whose first N elements live
// inside the object; longer contents go to the heap. Shape (sizes, strides, dims) is
// SmallVec<int64_t, kInlineDims>, so a tensor's metadata and the shape arithmetic of an op
// allocate nothing for tensors of up to kInlineDims dims (Note [Tensor allocation] in
// impl/core/tensor.h). The interface is the part of std::vector the code uses; iterators are
// pointers. It converts from std::vector implicitly and to it with vec().
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <type_traits>
#include <vector>

namespace ct {

template <typename T, size_t N>
class SmallVec {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "SmallVec holds trivially copyable values only (it copies with memcpy)");
  static_assert(N > 0, "SmallVec needs an inline capacity");

 public:
  using value_type = T;
  using size_type = size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  SmallVec() noexcept : data_(inline_), size_(0), cap_(N) {}
  explicit SmallVec(size_t n) : SmallVec() { resize(n); }
  SmallVec(size_t n, const T& v) : SmallVec() { assign(n, v); }
  template <typename It, typename = std::enable_if_t<!std::is_integral_v<It>>>
  SmallVec(It first, It last) : SmallVec() { assign(first, last); }
  SmallVec(std::initializer_list<T> il) : SmallVec() { assign(il.begin(), il.end()); }
  SmallVec(const std::vector<T>& v) : SmallVec() { assign(v.begin(), v.end()); }  // NOLINT: implicit
  SmallVec(const SmallVec& o) : SmallVec() { copy_from(o); }
  SmallVec(SmallVec&& o) noexcept : SmallVec() { take(o); }
  ~SmallVec() { release(); }

  SmallVec& operator=(const SmallVec& o) {
    if (this != &o) copy_from(o);
    return *this;
  }
  SmallVec& operator=(SmallVec&& o) noexcept {
    if (this != &o) {
      release();
      data_ = inline_;
      cap_ = N;
      take(o);
    }
    return *this;
  }
  SmallVec& operator=(std::initializer_list<T> il) {
    assign(il.begin(), il.end());
    return *this;
  }

  void assign(size_t n, const T& v) {
    T x = v;  // v may live in this vector
    clear();
    resize(n, x);
  }
  template <typename It, typename = std::enable_if_t<!std::is_integral_v<It>>>
  void assign(It first, It last) {
    size_t n = static_cast<size_t>(std::distance(first, last));
    size_ = 0;
    reserve(n);
    std::copy(first, last, data_);
    size_ = static_cast<uint32_t>(n);
  }
  void assign(std::initializer_list<T> il) { assign(il.begin(), il.end()); }

  size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  size_t capacity() const noexcept { return cap_; }
  size_t max_size() const noexcept { return UINT32_MAX; }
  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }

  T& operator[](size_t i) noexcept { return data_[i]; }
  const T& operator[](size_t i) const noexcept { return data_[i]; }
  T& front() noexcept { return data_[0]; }
  const T& front() const noexcept { return data_[0]; }
  T& back() noexcept { return data_[size_ - 1]; }
  const T& back() const noexcept { return data_[size_ - 1]; }

  iterator begin() noexcept { return data_; }
  iterator end() noexcept { return data_ + size_; }
  const_iterator begin() const noexcept { return data_; }
  const_iterator end() const noexcept { return data_ + size_; }
  const_iterator cbegin() const noexcept { return data_; }
  const_iterator cend() const noexcept { return data_ + size_; }
  reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
  reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }

  void reserve(size_t n) {
    if (n > cap_) grow(n);
  }
  void clear() noexcept { size_ = 0; }
  void resize(size_t n) { resize(n, T()); }
  void resize(size_t n, const T& v) {
    if (n > size_) {
      T x = v;
      if (n <= N && data_ == inline_) {
        for (size_t i = size_; i < N && i < n; ++i) inline_[i] = x;  // see copy_inline
      } else {
        reserve(n);
        std::fill(data_ + size_, data_ + n, x);
      }
    }
    size_ = static_cast<uint32_t>(n);
  }
  void push_back(const T& v) {
    T x = v;
    if (size_ == cap_) grow(size_ + 1);
    data_[size_++] = x;
  }
  template <typename... A>
  T& emplace_back(A&&... a) {
    push_back(T(std::forward<A>(a)...));
    return back();
  }
  void pop_back() noexcept { --size_; }

  iterator insert(const_iterator pos, const T& v) { return insert(pos, size_t{1}, v); }
  iterator insert(const_iterator pos, size_t n, const T& v) {
    T x = v;
    size_t i = make_gap(pos, n);
    std::fill_n(data_ + i, n, x);
    return data_ + i;
  }
  template <typename It, typename = std::enable_if_t<!std::is_integral_v<It>>>
  iterator insert(const_iterator pos, It first, It last) {
    size_t n = static_cast<size_t>(std::distance(first, last));
    if (n == 0) return data_ + (pos - data_);
    SmallVec tmp(first, last);  // the range may lie in this vector
    size_t i = make_gap(pos, n);
    std::memcpy(data_ + i, tmp.data_, n * sizeof(T));
    return data_ + i;
  }
  iterator insert(const_iterator pos, std::initializer_list<T> il) { return insert(pos, il.begin(), il.end()); }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    size_t i = static_cast<size_t>(first - data_), j = static_cast<size_t>(last - data_);
    std::memmove(data_ + i, data_ + j, (size_ - j) * sizeof(T));
    size_ -= static_cast<uint32_t>(j - i);
    return data_ + i;
  }
  void swap(SmallVec& o) noexcept {
    SmallVec t(std::move(o));
    o = std::move(*this);
    *this = std::move(t);
  }

  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

  friend bool operator==(const SmallVec& a, const SmallVec& b) {
    if (a.size_ != b.size_) return false;
    for (uint32_t i = 0; i < a.size_; ++i)  // no call to memcmp (std::equal's) for a few values
      if (a.data_[i] != b.data_[i]) return false;
    return true;
  }
  friend bool operator!=(const SmallVec& a, const SmallVec& b) { return !(a == b); }
  friend bool operator<(const SmallVec& a, const SmallVec& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  void release() noexcept {
    if (data_ != inline_) ::operator delete(data_);
  }
  // o's contents into this (empty, inline) vector; o is left empty.
  void take(SmallVec& o) noexcept {
    if (o.data_ != o.inline_) {
      data_ = o.data_;
      cap_ = o.cap_;
      o.data_ = o.inline_;
      o.cap_ = N;
    } else {
      copy_inline(o);
    }
    size_ = o.size_;
    o.size_ = 0;
  }
  // Small shapes are copied and filled often: loops bounded by the constant N, which the
  // compiler keeps as a few element moves (no call to memcpy/memset, whose call costs more than
  // the copy, and no wide vector loads of elements just stored one by one, which stall on
  // store forwarding).
  void copy_inline(const SmallVec& o) noexcept {
    for (size_t i = 0; i < N && i < o.size_; ++i) inline_[i] = o.inline_[i];
  }
  void copy_from(const SmallVec& o) {
    if (o.data_ == o.inline_ && data_ == inline_) {
      copy_inline(o);
      size_ = o.size_;
    } else {
      assign(o.begin(), o.end());
    }
  }
  void grow(size_t need) {
    size_t cap = std::max<size_t>(need, 2 * static_cast<size_t>(cap_));
    if (cap > max_size()) throw std::bad_alloc();
    T* p = static_cast<T*>(::operator new(cap * sizeof(T)));
    std::memcpy(p, data_, size_ * sizeof(T));
    release();
    data_ = p;
    cap_ = static_cast<uint32_t>(cap);
  }
  // Opens n uninitialized elements at pos; returns their index.
  size_t make_gap(const_iterator pos, size_t n) {
    size_t i = static_cast<size_t>(pos - data_);
    reserve(size_ + n);
    std::memmove(data_ + i + n, data_ + i, (size_ - i) * sizeof(T));
    size_ += static_cast<uint32_t>(n);
    return i;
  }

  T* data_;
  uint32_t size_;
  uint32_t cap_;
  T inline_[N];
};

}  // namespace ct
