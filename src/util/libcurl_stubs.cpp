// The libcurl functions gpudoctor calls, defined here with libcurl's own declarations: each looks its target
// up in libcurl.so.4 on first call (util/shared_library.hpp says why it is not linked).
#include "util/shared_library.hpp"

#include <cstdarg>

#include <curl/curl.h>

namespace {

template <class F> F curl_symbol(const char* name) {
  return reinterpret_cast<F>(gpudoctor::libcurl_library().symbol(name));
}

} // namespace

// One stub per function; the name in parentheses is not expanded by curl's type-checking macros.
#define GD_CURL_STUB(ret, name, params, args)                                                                \
  extern "C" ret(name) params {                                                                              \
    static const auto fn = curl_symbol<decltype(&::name)>(#name);                                            \
    return fn args;                                                                                          \
  }

GD_CURL_STUB(CURLcode, curl_global_init, (long flags), (flags))
GD_CURL_STUB(CURL*, curl_easy_init, (void), ())
GD_CURL_STUB(void, curl_easy_cleanup, (CURL * curl), (curl))
GD_CURL_STUB(CURLcode, curl_easy_perform, (CURL * curl), (curl))
GD_CURL_STUB(const char*, curl_easy_strerror, (CURLcode code), (code))
GD_CURL_STUB(struct curl_slist*, curl_slist_append, (struct curl_slist * list, const char* data),
             (list, data))
GD_CURL_STUB(void, curl_slist_free_all, (struct curl_slist * list), (list))
GD_CURL_STUB(void, curl_free, (void* p), (p))
GD_CURL_STUB(CURLU*, curl_url, (void), ())
GD_CURL_STUB(void, curl_url_cleanup, (CURLU * handle), (handle))
GD_CURL_STUB(CURLUcode, curl_url_get, (CURLU * handle, CURLUPart what, char** part, unsigned int flags),
             (handle, what, part, flags))
GD_CURL_STUB(CURLUcode, curl_url_set, (CURLU * handle, CURLUPart what, const char* part, unsigned int flags),
             (handle, what, part, flags))

// The option's number says the type of its one value (curl.h: CURLOPTTYPE_*): a long, a data or function
// pointer, a curl_off_t or a blob pointer. Read as that type and handed on.
extern "C" CURLcode(curl_easy_setopt)(CURL* curl, CURLoption option, ...) {
  static const auto fn = curl_symbol<decltype(&::curl_easy_setopt)>("curl_easy_setopt");
  va_list args;
  va_start(args, option);
  CURLcode code;
  if (option < CURLOPTTYPE_OBJECTPOINT) {
    code = fn(curl, option, va_arg(args, long));
  } else if (option < CURLOPTTYPE_FUNCTIONPOINT) {
    code = fn(curl, option, va_arg(args, void*));
  } else if (option < CURLOPTTYPE_OFF_T) {
    using Function = void (*)();
    code = fn(curl, option, va_arg(args, Function));
  } else if (option < CURLOPTTYPE_BLOB) {
    code = fn(curl, option, va_arg(args, curl_off_t));
  } else {
    code = fn(curl, option, va_arg(args, void*));
  }
  va_end(args);
  return code;
}

// Every CURLINFO_* takes a pointer to where the answer goes.
extern "C" CURLcode(curl_easy_getinfo)(CURL* curl, CURLINFO info, ...) {
  static const auto fn = curl_symbol<decltype(&::curl_easy_getinfo)>("curl_easy_getinfo");
  va_list args;
  va_start(args, info);
  void* where = va_arg(args, void*);
  va_end(args);
  return fn(curl, info, where);
}
