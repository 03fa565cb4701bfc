// SPDX-License-Identifier: GPL-2.0
// Test helper: a sub-buffer page of a 64-bit little-endian kernel (the
// captures' layout) rewritten as a kernel with a 4-byte long or the other
// byte order would have written it, so that the decoder's other layouts are
// tested on real records (tests/unit/test_layout.cpp, tests/fuzz). It takes
// any bytes: what cannot be walked is left as it is.
#pragma once

#include "core/decoder.hpp"
#include "core/tep.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace kprof::test {

struct PageLayout {
	size_t commit;	// the kernel's long, the header's commit field: 4 or 8
	bool big;	// big-endian
	std::string name() const { return std::to_string(commit * 8) + "-bit " + (big ? "big" : "little") + "-endian"; }
};
inline constexpr PageLayout kLayouts[] = {{8, false}, {4, false}, {8, true}, {4, true}};

inline void replace_once(std::string &s, const std::string &from, const std::string &to)
{
	if (const auto at = s.find(from); at != std::string::npos)
		s.replace(at, from.size(), to);
}

// A 64-bit kernel's header_page text as a kernel of @to prints it (the text
// does not depend on the byte order).
inline std::string header_page_for(std::string text, PageLayout to)
{
	if (to.commit == 4) {
		replace_once(text, "local_t commit;\toffset:8;\tsize:8;", "local_t commit;\toffset:8;\tsize:4;");
		replace_once(text, "char data;\toffset:16;\tsize:4080;", "char data;\toffset:12;\tsize:4084;");
	}
	return text;
}

inline uint64_t get_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v |= uint64_t(p[i]) << (8 * i);
	return v;
}

inline void put(uint8_t *p, uint64_t v, size_t n, bool big)
{
	for (size_t i = 0; i < n; i++)
		p[big ? n - 1 - i : i] = uint8_t(v >> (8 * i));
}

// Reverse each numeric field of the event record at @p (@size bytes, little
// endian) in place, by its format in @tep; char arrays stay as they are.
inline void swap_fields(tep_handle *tep, uint8_t *p, size_t size)
{
	tep_event *ev = size >= 2 ? tep_find_event(tep, int(get_le(p, 2))) : nullptr;
	if (!ev)
		return;
	for (tep_format_field *list : {ev->format.common_fields, ev->format.fields})
		for (tep_format_field *f = list; f; f = f->next) {
			const int n = f->flags & TEP_FIELD_IS_DYNAMIC ? 4 : f->flags & TEP_FIELD_IS_ARRAY ? 0 : f->size;
			if ((n == 2 || n == 4 || n == 8) && f->offset >= 0 && size_t(f->offset + n) <= size)
				std::reverse(p + f->offset, p + f->offset + n);
		}
}

// The records at @r (@len bytes of @avail), little endian, made big endian:
// each header word's type_len moves from the low 5 bits to the high ones,
// second words and event fields are reversed. Walked as kbuffer does.
inline void records_to_big(tep_handle *tep, uint8_t *r, size_t avail, uint64_t len)
{
	for (uint64_t off = 0; off < len && off + 4 <= avail;) {
		const auto w = uint32_t(get_le(r + off, 4));
		const uint32_t type_len = w & 0x1f;
		put(r + off, uint64_t(type_len) << 27 | w >> 5, 4, true);
		if (type_len >= 1 && type_len <= 28) {
			const uint64_t n = 4 * uint64_t(type_len);
			if (off + 4 + n > avail)
				return;
			swap_fields(tep, r + off + 4, n);
			off += 4 + n;
			continue;
		}
		if (off + 8 > avail)
			return;
		const auto w2 = uint32_t(get_le(r + off + 4, 4));
		std::reverse(r + off + 4, r + off + 8);
		int64_t next;
		if (type_len == 29)
			next = int64_t(off) + 4 + int32_t(w2);
		else if (type_len >= 30)
			next = int64_t(off) + 8;
		else {
			swap_fields(tep, r + off + 8, std::min<uint64_t>(w2 - 4u, avail - off - 8));
			next = int64_t(off) + 8 + int32_t((w2 - 4 + 3) & ~3u);
		}
		if (next <= int64_t(off) || uint64_t(next) > avail)
			return;
		off = uint64_t(next);
	}
}

// The @size-byte page at @page, as a kernel of layout @to writes it.
inline std::vector<uint8_t> relayout(tep_handle *tep, const uint8_t *page, size_t size, PageLayout to)
{
	if (size < 16)
		return {page, page + size};
	std::vector<uint8_t> out(size, 0);
	const uint64_t commit = get_le(page + 8, 8);
	const auto low = uint32_t(commit);
	const uint64_t len = std::min<uint64_t>(low & 0x3fffffff, size - 16);
	const size_t data = 8 + to.commit;
	put(out.data(), get_le(page, 8), 8, to.big);
	put(out.data() + 8, to.commit == 8 ? commit : low, to.commit, to.big);
	std::memcpy(out.data() + data, page + 16, size - 16);
	// The count of lost events, stored after the records when it fits.
	if ((low >> 30) == 3 && 16 + len + 8 <= size)
		put(out.data() + data + len, get_le(page + 16 + len, 8), to.commit, to.big);
	if (to.big)
		records_to_big(tep, out.data() + data, size - data, len);
	return out;
}

}  // namespace kprof::test
