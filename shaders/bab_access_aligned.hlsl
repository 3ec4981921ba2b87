// compile: -T cs_6_6 -E main -enable-16bit-types
// Silent twins of bab_access_misaligned.hlsl: aligned offsets, a half at an even offset,
// and an offset the dataflow cannot bound (loaded from the buffer).
ByteAddressBuffer g_In : register(t0);
RWByteAddressBuffer g_Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID) {
  uint a = g_In.Load(8);
  half h = g_In.Load<half>(2 * tid + 2);
  uint unknown = g_In.Load(tid * 4);
  g_Out.Store(tid * 8 + 4, a + (uint)h + g_In.Load(unknown));
}
