struct polar_functor {
  template <typename T>
  inline c10::metal::vec2type_t<T> operator()(const T r, const T theta) {
    return c10::metal::vec2type_t<T>(r * cos(theta), r * sin(theta));
  }
};
