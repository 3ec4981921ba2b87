// DeepGEMM JIT instantiation (csrc/jit_kernels/impls/sm100_mqa_logits.hpp generate_impl) for FP8
// (is_fp4 false), num_heads 64, head_dim 128, uncompressed logits, block_q 2, split_kv 256, 3 Q and
// 5 KV stages, 148 SMs, 128 specialized + 256 math threads, float logits and weights.
#include <deep_gemm/impls/sm100_mqa_logits.cuh>
using namespace deep_gemm;
static void __instantiate_kernel() {
    auto ptr = reinterpret_cast<void*>(&sm100_mqa_logits<false, 64, 128, false, 2, 256, 3, 5, 148, 128, 256, float, float>);
}
