inline float expm1f_(float x) {
  // Kahan's expm1: exp's rounding error cancels in (u - 1) * (x / log(u))
  const float u = precise::exp(x);
  if (u == 1.0f || ::metal::isinf(u) || ::metal::isnan(u)) {
    return u == 1.0f ? x : u - 1.0f;
  }
  return u - 1.0f == -1.0f ? -1.0f : (u - 1.0f) * (x / precise::log(u));
}
