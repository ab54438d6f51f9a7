inline float hypot_(float a, float b) {
  // |(a, b)| without overflow; an infinity wins over NaN, as in C's hypot
  a = ::metal::fabs(a);
  b = ::metal::fabs(b);
  if (::metal::isinf(a) || ::metal::isinf(b)) {
    return INFINITY;
  }
  const float hi = ::metal::fmax(a, b), lo = ::metal::fmin(a, b);
  if (::metal::isnan(a) || ::metal::isnan(b) || hi == 0.0f) {
    return a + b;
  }
  const float r = lo / hi;
  return hi * precise::sqrt(1.0f + r * r);
}
