// compile: -T cs_6_6 -E main
// One arm of a branch misaligned: the store offset is 16 or 18 (possible, reported as a warning).
RWByteAddressBuffer g_Out : register(u0);
cbuffer Params : register(b0) { uint g_Mode; };
[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID) {
  uint off = g_Mode != 0 ? 18 : 16;
  g_Out.Store(off, tid);                                  // expect: dxil-bytebuf-access-misaligned address=16|18 align=4 maybe
}
