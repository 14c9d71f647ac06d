#include "FuzzDriver.h"
