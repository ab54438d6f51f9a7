inline float xlogy_(float x, float y) {
  // x * log(y), 0 where x is 0 unless y is NaN
  return ::metal::isnan(y) ? NAN : x == 0.0f ? x : x * precise::log(y);
}
