// The libarchive functions gpudoctor calls, defined here with libarchive's own declarations: each looks its
// target up in libarchive.so.13 on first call (util/shared_library.hpp says why it is not linked).
#include "util/shared_library.hpp"

#include <cstdarg>
#include <cstdio>

#include <archive.h>
#include <archive_entry.h>

namespace {

template <class F> F archive_symbol(const char* name) {
  return reinterpret_cast<F>(gpudoctor::libarchive_library().symbol(name));
}

} // namespace

// One stub per function: the declaration's return type, parameters and argument names.
#define GD_ARCHIVE_STUB(ret, name, params, args)                                                             \
  extern "C" ret name params {                                                                               \
    static const auto fn = archive_symbol<decltype(&::name)>(#name);                                         \
    return fn args;                                                                                          \
  }

GD_ARCHIVE_STUB(struct archive*, archive_read_new, (void), ())
GD_ARCHIVE_STUB(int, archive_read_free, (struct archive * a), (a))
GD_ARCHIVE_STUB(int, archive_read_support_format_tar, (struct archive * a), (a))
GD_ARCHIVE_STUB(int, archive_read_support_format_gnutar, (struct archive * a), (a))
GD_ARCHIVE_STUB(int, archive_read_open,
                (struct archive * a, void* data, archive_open_callback* open, archive_read_callback* read,
                 archive_close_callback* close),
                (a, data, open, read, close))
GD_ARCHIVE_STUB(int, archive_read_next_header, (struct archive * a, struct archive_entry** entry), (a, entry))
GD_ARCHIVE_STUB(int, archive_read_data_block,
                (struct archive * a, const void** buff, size_t* size, la_int64_t* offset),
                (a, buff, size, offset))
GD_ARCHIVE_STUB(int, archive_read_data_skip, (struct archive * a), (a))
GD_ARCHIVE_STUB(struct archive*, archive_write_new, (void), ())
GD_ARCHIVE_STUB(int, archive_write_free, (struct archive * a), (a))
GD_ARCHIVE_STUB(int, archive_write_close, (struct archive * a), (a))
GD_ARCHIVE_STUB(int, archive_write_add_filter_gzip, (struct archive * a), (a))
GD_ARCHIVE_STUB(int, archive_write_set_format_gnutar, (struct archive * a), (a))
GD_ARCHIVE_STUB(int, archive_write_open_fd, (struct archive * a, int fd), (a, fd))
GD_ARCHIVE_STUB(int, archive_write_header, (struct archive * a, struct archive_entry* entry), (a, entry))
GD_ARCHIVE_STUB(la_ssize_t, archive_write_data, (struct archive * a, const void* buff, size_t size),
                (a, buff, size))
GD_ARCHIVE_STUB(la_ssize_t, archive_write_data_block,
                (struct archive * a, const void* buff, size_t size, la_int64_t offset),
                (a, buff, size, offset))
GD_ARCHIVE_STUB(int, archive_write_finish_entry, (struct archive * a), (a))
GD_ARCHIVE_STUB(struct archive*, archive_write_disk_new, (void), ())
GD_ARCHIVE_STUB(int, archive_write_disk_set_options, (struct archive * a, int flags), (a, flags))
GD_ARCHIVE_STUB(const char*, archive_error_string, (struct archive * a), (a))
GD_ARCHIVE_STUB(struct archive_entry*, archive_entry_new, (void), ())
GD_ARCHIVE_STUB(void, archive_entry_free, (struct archive_entry * e), (e))
GD_ARCHIVE_STUB(__LA_MODE_T, archive_entry_filetype, (struct archive_entry * e), (e))
GD_ARCHIVE_STUB(void, archive_entry_set_filetype, (struct archive_entry * e, unsigned int type), (e, type))
GD_ARCHIVE_STUB(const char*, archive_entry_pathname, (struct archive_entry * e), (e))
GD_ARCHIVE_STUB(void, archive_entry_set_pathname, (struct archive_entry * e, const char* path), (e, path))
GD_ARCHIVE_STUB(const char*, archive_entry_hardlink, (struct archive_entry * e), (e))
GD_ARCHIVE_STUB(const char*, archive_entry_symlink, (struct archive_entry * e), (e))
GD_ARCHIVE_STUB(void, archive_entry_set_symlink, (struct archive_entry * e, const char* target), (e, target))
GD_ARCHIVE_STUB(la_int64_t, archive_entry_size, (struct archive_entry * e), (e))
GD_ARCHIVE_STUB(void, archive_entry_set_size, (struct archive_entry * e, la_int64_t size), (e, size))
GD_ARCHIVE_STUB(void, archive_entry_set_perm, (struct archive_entry * e, __LA_MODE_T perm), (e, perm))
GD_ARCHIVE_STUB(void, archive_entry_set_mtime, (struct archive_entry * e, time_t sec, long nsec),
                (e, sec, nsec))

// printf-style: formatted here, handed on as one "%s" argument.
extern "C" void archive_set_error(struct archive* a, int err, const char* fmt, ...) {
  static const auto fn = archive_symbol<decltype(&::archive_set_error)>("archive_set_error");
  char text[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(text, sizeof text, fmt, args);
  va_end(args);
  fn(a, err, "%s", text);
}
