template <typename T>
inline T fmod_(T a, T b) {
  return a % b; // integers: C's truncated remainder
}
