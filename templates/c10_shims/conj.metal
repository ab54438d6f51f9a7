inline float2 conj_(float2 a) {
  return float2(a.x, -a.y);
}
