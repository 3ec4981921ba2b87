// DeepGEMM JIT instantiation (csrc/jit_kernels/impls/sm90_fp8_mqa_logits.hpp generate_impl) for
// num_heads 64, head_dim 128, uncompressed logits, block_q 128/64, block_kv 256, 3+3 stages,
// 132 SMs, 128 TMA + 512 math threads, float logits (csrc/apis/attention.hpp defaults).
#include <deep_gemm/impls/sm90_fp8_mqa_logits.cuh>
using namespace deep_gemm;
static void __instantiate_kernel() {
    auto ptr = reinterpret_cast<void*>(&sm90_fp8_mqa_logits<64, 128, false, 2, 256, 3, 3, 132, 128, 512, float>);
}
