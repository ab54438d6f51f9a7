inline float erfc_(float x) {
  // libm's erfc as the catalog's erfc body: exp(-x^2) erfcx(|x|) with x^2 split exactly (fma) so exp(-x^2)
  // keeps float accuracy, 2 - erfc(-x) below 0, 0 (2 below 0) past 50
  const float a = ::metal::fabs(x);
  if (::metal::isnan(x)) {
    return x;
  }
  float r = 0.0f;
  if (a <= 50.0f) {
    const float hi = a * a, lo = ::metal::fma(a, a, -hi);  // a^2 = hi + lo exactly
    r = precise::exp(-hi) * (1.0f - lo) * erfcx_(a);
  }
  return x < 0.0f ? 2.0f - r : r;
}
