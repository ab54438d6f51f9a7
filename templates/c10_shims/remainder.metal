template <typename T>
inline T remainder_(T a, T b) {
  const T r = a % b; // integers: Python's modulo, the remainder takes the divisor's sign
  return r != 0 && (r < 0) != (b < 0) ? T(r + b) : r;
}
