// The number of threads CPU kernels use (ct_get_num_threads / ct_set_num_threads).
#pragma once

namespace ct::cpu {

int num_threads();
void set_num_threads(int n);

}  // namespace ct::cpu
