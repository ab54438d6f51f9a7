#pragma once
// mpsgen stand-in: the SDK header is part of Foundation.
#include <Foundation/Foundation.h>
