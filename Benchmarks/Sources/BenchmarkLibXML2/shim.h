#ifndef BENCHMARK_LIBXML2_SHIM_H
#define BENCHMARK_LIBXML2_SHIM_H
#include <libxml/xmlversion.h>
// As in the main package: libxml2's ICU declarations clash with Foundation's ICU on Linux.
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#endif
