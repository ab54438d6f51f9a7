inline float log1p_(float x) {
  // log(1 + x) to float precision: log(u) * (x / (u - 1)) cancels the rounding of u = 1 + x (Kahan), as
  // newer c10/metal's log1p and the CPU's log1pf
  const float u = 1.0f + x;
  if (u == 1.0f) {
    return x;
  }
  const float l = precise::log(u);
  return x > -0.5f && x < 0.5f ? l * (x / (u - 1.0f)) : l;
}
