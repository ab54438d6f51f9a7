inline float logaddexp_(float a, float b) {
  // log(exp(a) + exp(b)) without overflow; equal infinities return themselves
  if (::metal::isinf(a) && a == b) {
    return a;
  }
  const float t = precise::exp(-::metal::fabs(a - b)), u = 1.0f + t;
  return ::metal::fmax(a, b) + (u == 1.0f ? t : precise::log(u) * (t / (u - 1.0f))); // Kahan's log1p
}
inline float2 logaddexp_(float2 a, float2 b) {
  // complex: max + log1p(exp(min - max)), ordered by real part (cpu/LogAddExp.h); equal real parts
  // and infinities are the catalog body's to handle before it calls this
  const float2 hi = a.x < b.x ? b : a, lo = a.x < b.x ? a : b;
  const float2 d = lo - hi;
  const float e = precise::exp(d.x);
  const float2 z = e == 0.0f ? float2(0.0f, 0.0f) : float2(e * precise::cos(d.y), e * precise::sin(d.y)); // cexp(-inf + iy) = 0
  const float2 u = float2(z.x + 1.0f, z.y);
  if (u.x == 1.0f && u.y == 0.0f) {
    return hi + z;
  }
  // log1p(z) = log(u) * (z / (u - 1)) as c10/util/complex_math.h's CPU path, |u| without squaring, and
  // c10::complex's division (numpy's): the scale 1 / den first, so a subnormal den overflows it to inf and
  // the product to NaN as on the CPU (log1p(4.3e-40 - 1.2e-40i) is NaN there)
  const float2 w = float2(u.x - 1.0f, u.y);
  const float M = ::metal::fmax(::metal::fabs(u.x), ::metal::fabs(u.y)), N = ::metal::fmin(::metal::fabs(u.x), ::metal::fabs(u.y));
  const float Q = M == N ? 1.0f : N / M;
  const float lr = precise::log(M) + 0.5f * precise::log(1.0f + Q * Q), li = precise::atan2(u.y, u.x);
  if (w.x == z.x && w.y == z.y) {
    return hi + float2(lr, li);
  }
  const bool wide = ::metal::fabs(w.x) >= ::metal::fabs(w.y);
  const float r = wide ? w.y / w.x : w.x / w.y, scl = 1.0f / (wide ? w.x + w.y * r : w.y + w.x * r);
  const float2 q = wide ? float2((z.x + z.y * r) * scl, (z.y - z.x * r) * scl) : float2((z.x * r + z.y) * scl, (z.y * r - z.x) * scl);
  return hi + float2(lr * q.x - li * q.y, lr * q.y + li * q.x);
}
