// compile: -T cs_6_6 -E main -enable-16bit-types
// Byte-address-buffer accesses whose offsets are provably not multiples of their alignment
// (dxil-bytebuf-access-misaligned, issue 26): a 32-bit store at tid * 8 + 2 (always 2 mod 8),
// a 32-bit load at the constant 6, and a half load at 2 * tid + 1 (always odd).
ByteAddressBuffer g_In : register(t0);
RWByteAddressBuffer g_Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID) {
  uint a = g_In.Load(6);                                  // expect: dxil-bytebuf-access-misaligned address=6 align=4
  half h = g_In.Load<half>(2 * tid + 1);                  // expect: dxil-bytebuf-access-misaligned address=1+2k align=2
  g_Out.Store(tid * 8 + 2, a + (uint)h);                  // expect: dxil-bytebuf-access-misaligned address=2+8k align=4
}
