#pragma once
// Gives back to the system what glibc keeps of the memory a native job freed. glibc gives threads up to eight
// malloc arenas per core, and each keeps its threads' freed memory for them alone; the engine allocates on
// many threads (a thread per decode, the page networks', the kernels' pool), so over a document's first pages
// the CLI's resident memory rose by 200 MB and stayed there (a 30-page scan, real model: 795 MB at its peak,
// 578 MB trimmed after each job). M_ARENA_MAX set as the addon loads held it to 726 MB only, most likely
// because the process has made its arenas by then; MALLOC_ARENA_MAX in the environment works but is the
// launcher's to set.

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace saccade::js {

inline void return_freed_memory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace saccade::js
