#include "CMouchardShims.h"
