inline float zeta_(float x, float q) {
  // Hurwitz zeta(x, q) as native/Math.h's zeta (Cephes): inf at x == 1 and at non-positive integer q,
  // NaN for x < 1 and for negative q with x not an integer; a direct sum while its terms matter, then
  // the Euler-Maclaurin tail with the Bernoulli coefficients (2k)! / B_2k
  constexpr float MACHEP = 1.11022302462515654042E-16f;
  constexpr float B[12] = {12.0f, -720.0f, 30240.0f, -1209600.0f, 47900160.0f, -1.8924375803183791606e9f,
                           7.47242496e10f, -2.950130727918164224e12f, 1.1646782814350067249e14f,
                           -4.5979787224074726105e15f, 1.8152105401943546773e17f, -7.1661652561756670113e18f};
  if (x == 1.0f) {
    return INFINITY;
  }
  if (x < 1.0f) {
    return NAN;
  }
  if (q <= 0.0f) {
    if (q == ::metal::floor(q)) {
      return INFINITY;
    }
    if (x != ::metal::floor(x)) {
      return NAN;
    }
  }
  float s = precise::pow(q, -x);
  float a = q;
  float b = 0.0f;
  for (int i = 0; i < 9 || a <= 9.0f;) {
    ++i;
    a += 1.0f;
    b = precise::pow(a, -x);
    s += b;
    if (-MACHEP * s < b && b < MACHEP * s) {
      return s;
    }
  }
  const float w = a;
  s += b * w / (x - 1.0f);
  s -= 0.5f * b;
  float f = 1.0f;
  float k = 0.0f;
  for (int i = 0; i < 12; ++i) {
    f *= x + k;
    b /= w;
    const float t = f * b / B[i];
    s += t;
    if (::metal::fabs(t / s) < MACHEP) {
      return s;
    }
    k += 1.0f;
    f *= x + k;
    b /= w;
    k += 1.0f;
  }
  return s;
}
