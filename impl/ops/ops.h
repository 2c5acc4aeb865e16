// Every tensor operation, declared once. Each checks shapes, dtypes and devices, allocates its
// output, then dispatches on the device type (CPU kernels in ops/cpu; CUDA next issue).
#pragma once
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "impl/abi/tables.h"
#include "impl/core/tensor.h"
#include "impl/rng/generator.h"

namespace ct::ops {

// ---- type promotion and broadcasting
// The forms over TensorImpl pointers ({a.get(), b.get()}) copy no shared_ptr and allocate
// nothing: the ones the elementwise ops use.
DType result_type(const std::vector<Tensor>& ts);  // torch.result_type over tensors
DType result_type(std::initializer_list<const TensorImpl*> ts);
Shape broadcast_shapes(const Shape& a, const Shape& b);
// Checks that all tensors are on one device (0-dim CPU tensors excepted) and returns it.
Device common_device(const std::vector<Tensor>& ts, const char* op);
Device common_device(std::initializer_list<const TensorImpl*> ts, const char* op);

// ---- factories (devices resolved by the caller)
Tensor empty(Shape sizes, DType dtype, Device dev);
Tensor full(const Shape& sizes, double value, DType dtype, Device dev);
Tensor arange(double start, double end, double step, DType dtype, Device dev);
Tensor linspace(double start, double end, int64_t steps, DType dtype, Device dev);
Tensor eye(int64_t n, int64_t m, DType dtype, Device dev);
Tensor from_buffer(const void* data, int64_t nbytes, const Shape& sizes, DType dtype, Device dev);

// ---- copies and conversions
void copy_(const Tensor& dst, const Tensor& src, bool non_blocking = false);  // broadcast + dtype + device
Tensor to(const Tensor& t, Device dev, DType dtype, bool copy, bool non_blocking = false);  // may return t itself
Tensor pin_memory(const Tensor& t);  // a copy in pinned host memory
Tensor clone(const Tensor& t);
Tensor contiguous(const Tensor& t);  // t itself when contiguous
void copy_to_buffer(const Tensor& t, void* data, int64_t nbytes);
double item_double(const Tensor& t);
int64_t item_int64(const Tensor& t);
std::pair<double, double> item_complex(const Tensor& t);

// ---- views
Tensor view(const Tensor& t, Shape sizes);
Tensor reshape(const Tensor& t, Shape sizes);
Tensor permute(const Tensor& t, const Shape& dims);
Tensor transpose(const Tensor& t, int64_t d0, int64_t d1);
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Tensor slice(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step);
Tensor select(const Tensor& t, int64_t dim, int64_t index);
Tensor expand(const Tensor& t, const Shape& sizes);
Tensor squeeze(const Tensor& t);
Tensor squeeze_dim(const Tensor& t, int64_t dim);
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor flatten(const Tensor& t, int64_t start, int64_t end);

// ---- elementwise
Tensor unary(UnaryOp op, const Tensor& a);
void unary_(UnaryOp op, const Tensor& a);
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b);
void binary_(BinaryOp op, const Tensor& a, const Tensor& b);
Tensor clamp(const Tensor& a, bool has_min, double mn, bool has_max, double mx);
void clamp_(const Tensor& a, bool has_min, double mn, bool has_max, double mx);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
void fill_(const Tensor& t, double value);
// Throws Status::Argument ("value cannot be converted to type int8_t without overflow") when
// value does not fit dtype as torch's Scalar conversions check it.
void check_fill_value(double value, DType dtype);
// In-place and out= targets (PyTorch's TensorIterator checks): no element written twice
// ("unsupported operation: more than one element of the written-to tensor ..."); the result
// dtype castable to the target's (torch.can_cast; "<op>: result type Float can't be cast to the
// desired output type Long"); an input sharing memory with the target without being the very
// same view is cloned (unaliased returns the input itself otherwise).
void check_no_internal_overlap(const TensorImpl* t);
void check_inplace_cast(DType result, DType self, const char* op);
Tensor unaliased(const Tensor& in, const TensorImpl* out);
const char* unary_name(UnaryOp op);
const char* binary_name(BinaryOp op);

// Non-overlapping and dense (PyTorch's is_non_overlapping_and_dense): the elements fill
// [offset, offset + numel) exactly once, in any order of dims (contiguous, transposed, permuted).
bool is_non_overlapping_and_dense(const TensorImpl* t);
// t seen as [outer, t.size(dim), inner] (dim already wrapped): the products of the sizes before
// and after dim.
std::pair<int64_t, int64_t> outer_inner(const TensorImpl* t, int64_t dim);

// ---- reductions (dims empty = all)
Tensor reduce(ReduceOp op, const Tensor& t, const std::vector<int64_t>& dims, bool keepdim,
              bool has_dtype, DType dtype);
Tensor max_all(const Tensor& t, bool is_max);
std::pair<Tensor, Tensor> max_dim(const Tensor& t, int64_t dim, bool keepdim, bool is_max);
Tensor argmax(const Tensor& t, bool has_dim, int64_t dim, bool keepdim, bool is_max);
Tensor norm(const Tensor& t, double p, const std::vector<int64_t>& dims, bool keepdim);
// var (std where take_sqrt) and mean of a real floating CUDA tensor read in place by the
// reduction engine where its layout allows (Note [var in place], impl/ops/cuda/reduce.cu): false
// (nothing done) otherwise, or for a 0-dim or empty t. dims, correction, keepdim as var_mean.
bool var_mean_in_place(const Tensor& t, const std::vector<int64_t>& dims, double correction, bool keepdim,
                       bool take_sqrt, std::pair<Tensor, Tensor>* out);

// ---- joining
Tensor cat(const std::vector<Tensor>& ts, int64_t dim);
Tensor stack(const std::vector<Tensor>& ts, int64_t dim);

// ---- printing
std::string repr(const Tensor& t);


// ---- random (impl/ops/random.cc; Note [Random launch geometry]). gen may be null: the
// default generator of the tensor's device.
void uniform_(const Tensor& t, double from, double to, const rng::GeneratorPtr& gen);
void normal_(const Tensor& t, double mean, double std, const rng::GeneratorPtr& gen);
void random_(const Tensor& t, const rng::GeneratorPtr& gen);  // the dtype's range
void random_range_(const Tensor& t, int64_t from, int64_t to, const rng::GeneratorPtr& gen);  // [from, to)
void bernoulli_(const Tensor& t, double p, const rng::GeneratorPtr& gen);
Tensor rand(Shape sizes, DType dtype, Device dev, const rng::GeneratorPtr& gen);
Tensor randn(Shape sizes, DType dtype, Device dev, const rng::GeneratorPtr& gen);
Tensor randint(int64_t low, int64_t high, Shape sizes, DType dtype, Device dev, const rng::GeneratorPtr& gen);

// ---- matrix products (impl/ops/matmul.cc, impl/blas): OpenBLAS on the CPU, cuBLAS on CUDA
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& a, const Tensor& v);
Tensor addmm(const Tensor& input, const Tensor& m1, const Tensor& m2, double beta, double alpha);

// ---- FFT (impl/ops/fft.cc, impl/fft): norm 0 "backward", 1 "forward", 2 "ortho"; s / dims
// empty mean "all" (PyTorch's rules); n = -1 means the input's size.
Tensor fftn_c2c(const Tensor& x, std::vector<int64_t> s, std::vector<int64_t> dims, int norm, bool forward);
Tensor rfftn(const Tensor& x, std::vector<int64_t> s, std::vector<int64_t> dims, int norm);
Tensor irfftn(const Tensor& x, std::vector<int64_t> s, std::vector<int64_t> dims, int norm);
Tensor hfft(const Tensor& x, int64_t n, int64_t dim, int norm);
Tensor fftfreq(int64_t n, double d, DType dtype, Device dev);
Tensor fftshift(const Tensor& x, std::vector<int64_t> dims, bool inverse);

}  // namespace ct::ops
