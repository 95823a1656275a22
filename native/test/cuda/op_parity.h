#pragma once
// Every op of the backend table on random data: the backend under test against the CPU backend (within a
// tolerance), and the exactness rule of backend.h on the backend under test alone (a row computed in a call
// of width 33 or 100 is bit-identical to the same row computed alone).
#include "backend/backend.h"
#include "report.h"

namespace gpucheck {

// Appends one entry per check to `checks` ({"name", "pass", metrics...}); returns the number that failed.
int op_parity(saccade::Backend& ref, saccade::Backend& test, Json& checks);
int width_independence(saccade::Backend& test, Json& checks);

}  // namespace gpucheck
