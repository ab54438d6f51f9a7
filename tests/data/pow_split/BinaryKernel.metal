struct pow_scalar_functor {
  template <typename T>
  inline T operator()(const T a, const T b) {
    return static_cast<T>(precise::pow(float(a), float(b)));
  }
};

