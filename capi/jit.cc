// Section 25 of ctorch.h: the jiterator (impl/jit, Note [Jiterator kernels]).
#include <cstring>

#include "capi/api.h"
#include "capi/handles.h"
#include "impl/jit/jit.h"

using namespace ct;
using namespace ct::capi;

namespace {

std::shared_ptr<const jit::JitFunction> jit_arg(ct_cuda_jit_fn f) { return JitTable::get().lookup(f, "fn"); }

// The extra arguments of arrays names / types / ints / doubles (section 25's convention).
// prefix: "arg" at creation, "over" for a call's overrides (the parameters' names in messages).
jit::Extras extras_arg(const char* const* names, const ct_jit_arg_type* types, const int64_t* ints,
                       const double* doubles, int32_t n, const char* what, const char* prefix) {
  CT_CHECK(n >= 0, CT_ERR_ARGUMENT, what, ": the number of extra arguments must be >= 0, got ", n);
  jit::Extras out;
  if (n == 0) return out;
  need(names, str_cat(prefix, "_names").c_str());
  need(types, str_cat(prefix, "_types").c_str());
  for (int32_t i = 0; i < n; ++i) {
    CT_CHECK(names[i] != nullptr, CT_ERR_NULL_POINTER, what, ": extra argument ", i, "'s name is NULL");
    CT_CHECK(names[i][0] != '\0', CT_ERR_ARGUMENT, what, ": extra argument ", i, "'s name is empty");
    JitArg t = jit_arg_arg(types[i]);
    jit::Extra e;
    e.type = t;
    if (t == JitArg::Double) {
      CT_CHECK(doubles != nullptr, CT_ERR_NULL_POINTER, what, ": extra argument '", names[i], "' is a double but ",
               prefix, "_doubles is NULL");
      e.d = doubles[i];
    } else {
      CT_CHECK(ints != nullptr, CT_ERR_NULL_POINTER, what, ": extra argument '", names[i], "' is ",
               t == JitArg::Bool ? "a bool" : "an int64", " but ", prefix, "_ints is NULL");
      e.i = ints[i];
      e.b = ints[i] != 0;
    }
    if (std::strcmp(prefix, "over") == 0)  // (declared twice at creation: JitFunction's own check)
      for (const auto& seen : out)
        CT_CHECK(seen.first != names[i], CT_ERR_ARGUMENT, what, ": extra argument '", names[i], "' is overridden twice");
    out.emplace_back(names[i], e);
  }
  return out;
}

ct_status create(const char* code, int32_t num_outputs, bool by_ref, const char* const* names,
                 const ct_jit_arg_type* types, const int64_t* ints, const double* doubles, int32_t n,
                 ct_cuda_jit_fn* out) {
  need(code, "code");
  need(out, "out");
  jit::Extras extras = extras_arg(names, types, ints, doubles, n, "jiterator", "arg");
  auto f = std::make_shared<const jit::JitFunction>(code, num_outputs, by_ref, std::move(extras));
  *out = JitTable::get().add(std::move(f));
  return CT_OK;
}

// What ct_cuda_jit_run and ct_cuda_jit_run_out both take: the function, its inputs, the
// overrides, and an output count that must be the function's.
struct Call {
  std::shared_ptr<const jit::JitFunction> fn;
  std::vector<Tensor> inputs;
  jit::Extras over;
};
Call call_args(ct_cuda_jit_fn f, const ct_tensor* inputs, int32_t n_inputs, const char* const* over_names,
               const ct_jit_arg_type* over_types, const int64_t* over_ints, const double* over_doubles,
               int32_t n_over, int32_t n_outs) {
  Call c{jit_arg(f), tensors_arg(inputs, n_inputs, "inputs"), {}};
  c.over = extras_arg(over_names, over_types, over_ints, over_doubles, n_over, c.fn->name().c_str(), "over");
  CT_CHECK(n_outs == c.fn->num_outputs(), CT_ERR_ARGUMENT, c.fn->name(), " makes ", c.fn->num_outputs(),
           " outputs, but n_outs is ", n_outs);
  return c;
}

}  // namespace

extern "C" {

CT_API ct_status ct_cuda_jit_create(const char* code, const char* const* arg_names, const ct_jit_arg_type* arg_types,
                                    const int64_t* arg_ints, const double* arg_doubles, int32_t n_args,
                                    ct_cuda_jit_fn* out) {
  CT_API_BEGIN
  return create(code, 1, false, arg_names, arg_types, arg_ints, arg_doubles, n_args, out);
  CT_API_END
}

CT_API ct_status ct_cuda_jit_create_multi_output(const char* code, int32_t num_outputs, const char* const* arg_names,
                                                 const ct_jit_arg_type* arg_types, const int64_t* arg_ints,
                                                 const double* arg_doubles, int32_t n_args, ct_cuda_jit_fn* out) {
  CT_API_BEGIN
  return create(code, num_outputs, true, arg_names, arg_types, arg_ints, arg_doubles, n_args, out);
  CT_API_END
}

CT_API ct_status ct_cuda_jit_retain(ct_cuda_jit_fn f) {
  CT_API_BEGIN
  JitTable::get().retain(f);
  CT_API_END
}

CT_API ct_status ct_cuda_jit_release(ct_cuda_jit_fn f) {
  CT_API_BEGIN
  JitTable::get().release(f);
  CT_API_END
}

CT_API ct_status ct_live_cuda_jit_count(int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = JitTable::get().live();
  CT_API_END
}

CT_API ct_status ct_cuda_jit_name(ct_cuda_jit_fn f, void* buf, int64_t cap, int64_t* needed) {
  CT_API_BEGIN
  write_string(jit_arg(f)->name(), buf, cap, needed);
  CT_API_END
}

CT_API ct_status ct_cuda_jit_num_outputs(ct_cuda_jit_fn f, int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = jit_arg(f)->num_outputs();
  CT_API_END
}

CT_API ct_status ct_cuda_jit_run(ct_cuda_jit_fn f, const ct_tensor* inputs, int32_t n_inputs,
                                 const char* const* over_names, const ct_jit_arg_type* over_types,
                                 const int64_t* over_ints, const double* over_doubles, int32_t n_over,
                                 ct_tensor* outs, int32_t n_outs) {
  CT_API_BEGIN
  Call c = call_args(f, inputs, n_inputs, over_names, over_types, over_ints, over_doubles, n_over, n_outs);
  need(outs, "outs");
  std::vector<Tensor> res = c.fn->run(c.inputs, c.over);
  std::vector<ct_tensor> made;  // all or nothing: outs untouched on failure
  try {
    for (Tensor& t : res) made.push_back(new_handle(std::move(t)));
  } catch (...) {
    for (ct_tensor h : made) release(h);
    throw;
  }
  for (int32_t i = 0; i < n_outs; ++i) outs[i] = made[static_cast<size_t>(i)];
  CT_API_END
}

CT_API ct_status ct_cuda_jit_run_out(ct_cuda_jit_fn f, const ct_tensor* inputs, int32_t n_inputs,
                                     const char* const* over_names, const ct_jit_arg_type* over_types,
                                     const int64_t* over_ints, const double* over_doubles, int32_t n_over,
                                     const ct_tensor* outs, int32_t n_outs) {
  CT_API_BEGIN
  Call c = call_args(f, inputs, n_inputs, over_names, over_types, over_ints, over_doubles, n_over, n_outs);
  c.fn->run_out(c.inputs, c.over, tensors_arg(outs, n_outs, "outs"));
  CT_API_END
}

CT_API ct_status ct_cuda_jit_kernel_count(int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = jit::compiled_kernel_count();
  CT_API_END
}

}  // extern "C"
