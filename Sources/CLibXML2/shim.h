#ifndef PERSISTENTSTORES_CLIBXML2_SHIM_H
#define PERSISTENTSTORES_CLIBXML2_SHIM_H
#include <libxml/xmlversion.h>
// Foundation on Linux brings its own ICU; libxml2's ICU declarations clash with it
// ("UErrorCode has different definitions"), and the store never uses libxml2's ICU support.
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlwriter.h>
#include <libxml/xmlmemory.h>

/// `xmlFree` is a global function pointer variable, which Swift 6 rejects as shared mutable
/// state; this wrapper is the one way the stores free libxml2 memory.
static inline void ps_xmlFree(void *pointer) { xmlFree(pointer); }
#endif
