// SPDX-License-Identifier: GPL-2.0
#include "core/decoder.hpp"

#include "core/tep.hpp"

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace kprof {

namespace {

constexpr uint64_t kMissedEvents = 1ULL << 31;
constexpr uint64_t kMissedStored = 1ULL << 30;

std::string slurp(const std::filesystem::path &p)
{
	std::ifstream in(p, std::ios::binary);
	if (!in)
		throw std::runtime_error("cannot read " + p.string());
	std::ostringstream ss;
	ss << in.rdbuf();
	return ss.str();
}

}  // namespace

std::optional<PageHeader> parse_page_header(const void *page, size_t size, size_t commit_size, ByteOrder order)
{
	if (commit_size != 4 && commit_size != 8)
		return std::nullopt;
	PageHeader h;
	h.data_offset = 8 + commit_size;
	if (size < h.data_offset)
		return std::nullopt;
	const auto *bytes = static_cast<const uint8_t *>(page);
	// The kernel adds the flags as ints (1 << 31): on a 64-bit long the
	// sign extends into the upper half. Length and flags are the low 32 bits.
	const auto commit = uint32_t(order.load(bytes + 8, int(commit_size)));
	h.length = commit & ~uint32_t(kMissedEvents | kMissedStored);
	if (h.length > size - h.data_offset)
		return std::nullopt;
	if (commit & kMissedEvents) {
		const size_t at = h.data_offset + h.length;
		if ((commit & kMissedStored) && at + commit_size <= size)
			h.missed = int64_t(order.load(bytes + at, int(commit_size)));
		else
			h.missed = -1;
	}
	return h;
}

bool records_walkable(const uint8_t *data, size_t avail, uint64_t length, ByteOrder order)
{
	using rb::kPadding, rb::kTimeExtend, rb::kTimeStamp;
	uint64_t off = 0;
	while (off < length) {
		if (off + 4 > avail)
			return false;
		const auto type_len = order.type_len(uint32_t(order.load(data + off, 4)));
		if (type_len != 0 && type_len < kPadding) {
			off += 4 + 4 * uint64_t(type_len);
			continue;
		}
		if (off + 8 > avail)	// these four read a second word
			return false;
		const auto word = uint32_t(order.load(data + off + 4, 4));
		int64_t next;	// kbuffer's arithmetic: int lengths, wrapping
		if (type_len == kPadding)
			next = int64_t(off) + 4 + int32_t(word);
		else if (type_len == kTimeExtend || type_len == kTimeStamp)
			next = int64_t(off) + 8;
		else
			next = int64_t(off) + 8 + int32_t((word - 4 + 3) & ~3u);
		if (next <= int64_t(off) || uint64_t(next) > avail)
			return false;
		off = uint64_t(next);
	}
	return true;
}

namespace {

// The offset of the header page's "data" field, from its text: kbuffer
// reads records right after the commit field, so nothing else will do.
size_t header_data_offset(const std::string &header)
{
	const auto at = header.find("char data;");
	const auto off = at == std::string::npos ? at : header.find("offset:", at);
	return off == std::string::npos ? 0 : size_t(std::strtoul(header.c_str() + off + 7, nullptr, 10));
}

// The page layout and the kernel's long come from @header (the kernel's
// header_page): a 32-bit kprofctl reads a 64-bit kernel's pages, and a
// trace made on one machine is read on another.
void parse_header_page(tep_handle *tep, std::string header, const std::filesystem::path &from)
{
	if (tep_parse_header_page(tep, header.data(), header.size(), int(sizeof(long))))
		throw std::runtime_error("cannot parse " + from.string());
	const int commit = tep_get_header_page_size(tep);
	if ((commit != 4 && commit != 8) || header_data_offset(header) != size_t(8 + commit))
		throw std::runtime_error(from.string() + ": a ring-buffer page layout kprofctl cannot read (commit size " +
					 std::to_string(commit) + ", data at " +
					 std::to_string(header_data_offset(header)) + ")");
	tep_set_long_size(tep, commit);
}

}  // namespace

TepPtr tep_from_files(const std::filesystem::path &header_page, const std::vector<std::filesystem::path> &formats,
		      int page_size, tep_endian endian)
{
	TepPtr tep(tep_alloc());
	if (!tep)
		throw std::runtime_error("tep_alloc failed");
	tep_set_page_size(tep.get(), page_size);
	tep_set_file_bigendian(tep.get(), endian);
	tep_set_local_bigendian(tep.get(), ByteOrder::kHostBig ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	parse_header_page(tep.get(), slurp(header_page), header_page);
	for (const auto &f : formats) {
		std::string fmt = slurp(f);
		// events/<system>/<event>/format, or a capture's formats/<event> (kprof)
		const std::string sys = f.filename() == "format" ? f.parent_path().parent_path().filename().string() : "kprof";
		if (tep_parse_event(tep.get(), fmt.data(), fmt.size(), sys.c_str()))
			throw std::runtime_error("cannot parse the format " + f.string());
	}
	return tep;
}

std::vector<std::filesystem::path> capture_formats(const std::filesystem::path &dir,
						   const std::vector<std::string> &extra)
{
	std::vector<std::filesystem::path> formats;
	for (const auto &e : std::filesystem::directory_iterator(dir / "formats"))
		formats.push_back(e.path());
	for (const auto &ev : extra)
		formats.push_back(dir / "events" / ev / "format");
	return formats;
}

TepPtr tep_from_capture(const std::filesystem::path &dir, const std::vector<std::string> &extra)
{
	return tep_from_files(dir / "header_page", capture_formats(dir, extra), 4096, TEP_LITTLE_ENDIAN);
}

TepPtr tep_from_tracefs(const std::filesystem::path &tdir, const std::vector<std::string> &extra)
{
	std::vector<std::filesystem::path> formats;
	for (const auto &e : extra)
		formats.push_back(tdir / "events" / e / "format");
	std::error_code ec;
	for (const auto &e : std::filesystem::directory_iterator(tdir / "events" / "kprof", ec))
		if (std::filesystem::exists(e.path() / "format"))
			formats.push_back(e.path() / "format");
	if (ec || formats.empty())
		throw std::runtime_error("cannot read the kprof event formats under " + (tdir / "events/kprof").string());
	return tep_from_files(tdir / "events" / "header_page", formats, int(sysconf(_SC_PAGESIZE)),
			      ByteOrder::kHostBig ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
}

Decoder::Decoder(tep_handle *tep)
	: tep_(tep), order_(byte_order_of(tep)), commit_size_(size_t(tep_get_header_page_size(tep)))
{
	bool any = false;
	for (const auto &spec : kEvents) {
		tep_event *ev = tep_find_event_by_name(tep, "kprof", spec.event);
		if (!ev)
			continue;
		auto need = [&](const char *field) {
			tep_format_field *f = tep_find_field(ev, field);
			if (!f)
				throw std::runtime_error(std::string(spec.event) + " has no field '" + field +
							 "': kprof.ko and kprofctl versions differ");
			return f;
		};
		Layout l;
		l.known = true;
		l.kind = spec.kind;
		tep_format_field *dev = need(spec.name);
		if (!(dev->flags & TEP_FIELD_IS_DYNAMIC) || dev->size != 4)
			throw std::runtime_error(std::string(spec.event) + ": '" + spec.name + "' is not a __string field");
		l.dev_off = dev->offset;
		tep_format_field *val = need(spec.value);
		l.val_off = val->offset;
		l.val_size = val->size;
		l.min_size = std::max(dev->offset + 4, val->offset + val->size);
		if (spec.aux) {
			tep_format_field *aux = need(spec.aux);
			l.aux_off = aux->offset;
			l.aux_size = aux->size;
			l.min_size = std::max(l.min_size, aux->offset + aux->size);
		}
		if (spec.cpu) {
			tep_format_field *c = need(spec.cpu);
			l.cpu_off = c->offset;
			l.cpu_size = c->size;
			l.min_size = std::max(l.min_size, c->offset + c->size);
		}
		if (spec.irq) {
			tep_format_field *irq = need(spec.irq);
			l.irq_off = irq->offset;
			l.irq_size = irq->size;
			l.min_size = std::max(l.min_size, irq->offset + irq->size);
		}
		if (tep_format_field *f = spec.flag ? tep_find_field(ev, spec.flag) : nullptr) {
			l.flag_off = f->offset;
			l.flag_size = f->size;
			l.min_size = std::max(l.min_size, f->offset + f->size);
		}
		tep_format_field *seq = need(kSeqField);
		if (seq->size != 8)
			throw std::runtime_error(std::string(spec.event) + ": 'seq' is not a u64");
		l.seq_off = seq->offset;
		l.min_size = std::max(l.min_size, seq->offset + 8);
		if (ev->id < 0 || ev->id > 65535)
			throw std::runtime_error("implausible event id for " + std::string(spec.event));
		if (tep_format_field *t = tep_find_common_field(ev, "common_type")) {
			type_off_ = t->offset;	// the same in every event
			type_size_ = t->size;
		}
		if (by_id_.size() <= size_t(ev->id))
			by_id_.resize(ev->id + 1);
		by_id_[ev->id] = l;
		kinds_[int(spec.kind)] = true;
		any = true;
	}
	if (!any)
		throw std::runtime_error("no kprof event formats found: is kprof.ko loaded?");
}

bool Decoder::knows(EventKind k) const
{
	return kinds_[int(k)];
}

uint32_t Decoder::intern(std::string_view name)
{
	// A handful of devices: a linear scan beats the map's string compares.
	if (devices_.size() <= kScanDevices)
		for (uint32_t i = 0; i < devices_.size(); i++)
			if (devices_[i] == name)
				return i;
	auto it = device_ids_.find(name);
	if (it != device_ids_.end())
		return it->second;
	const auto id = uint32_t(devices_.size());
	devices_.emplace_back(name);
	device_ids_.emplace(std::string(name), id);
	return id;
}

std::optional<int64_t> Decoder::page_missed(const void *page, size_t size) const
{
	const auto h = parse_page_header(page, size, commit_size_, order_);
	if (!h)
		return std::nullopt;
	return h->missed;
}

uint64_t Decoder::page_length(const void *page, size_t size) const
{
	const auto h = parse_page_header(page, size, commit_size_, order_);
	return h ? h->length : 0;
}

// The writer adds a record, then moves the commit word past it: a copy that
// loads the word first (acquire) and keeps that value sees whole records.
// Length and flags are in the word's low 32 bits, the upper half of a
// 64-bit long changes only with the flags (when the page is swapped in).
uint64_t Decoder::copy_live_page(const uint8_t *live, size_t size, uint8_t *out) const
{
	if (size < 8 + commit_size_)
		return 0;
	const size_t low = 8 + (order_.big() ? commit_size_ - 4 : 0);
	const uint32_t commit = __atomic_load_n(reinterpret_cast<const uint32_t *>(live + low), __ATOMIC_ACQUIRE);
	std::memcpy(out, live, size);
	std::memcpy(out + low, &commit, 4);
	return page_length(out, size);
}

PageResult Decoder::decode_page(const void *page, size_t size, int cpu, std::vector<Sample> &out, uint64_t skip)
{
	PageResult r;
	// The header is read here: kbuffer_missed_events() says 0 once its
	// cursor has moved past a leading time stamp, and kbuffer would trust
	// a commit length larger than the page.
	const auto hdr = parse_page_header(page, size, commit_size_, order_);
	const auto *base = static_cast<const uint8_t *>(page);
	const uint8_t *data = hdr ? base + hdr->data_offset : nullptr;
	if (!hdr || !records_walkable(data, size - hdr->data_offset, hdr->length, order_)) {
		r.bad_page = true;
		return r;
	}
	r.missed = skip ? 0 : hdr->missed;
	r.bytes = hdr->length - std::min(skip, hdr->length);
	const uint8_t *end = data + hdr->length, *from = data + std::min(skip, hdr->length);
	for_each_record(data, hdr->length, order_.load(base, 8), order_, [&](const RawRecord &rec) {
		if (rec.size < 0 || rec.data + rec.size > end) {
			r.invalid++;	// a record running past the data: stop here
			return false;
		}
		if (rec.data < from)
			return true;
		r.first_ts = std::min(r.first_ts, rec.ts);
		r.last_ts = rec.ts;
		decode_record(rec.data, rec.size, rec.ts, cpu, r, out);
		return true;
	});
	return r;
}

namespace {

// Device names are short: from 8 to 16 bytes, two words compared (the
// first 8 bytes and the last 8) decide; a call to memcmp costs more.
bool same_bytes(const std::string &a, const uint8_t *b, uint32_t len)
{
	if (a.size() != len)
		return false;
	if (len >= 8 && len <= 16) {
		uint64_t x[2], y[2];
		std::memcpy(&x[0], a.data(), 8);
		std::memcpy(&x[1], a.data() + len - 8, 8);
		std::memcpy(&y[0], b, 8);
		std::memcpy(&y[1], b + len - 8, 8);
		return x[0] == y[0] && x[1] == y[1];
	}
	return std::memcmp(a.data(), b, len) == 0;
}

}  // namespace

uint32_t Decoder::device_of(Layout &l, const uint8_t *raw, uint32_t len)
{
	if (!l.last_raw.empty() && same_bytes(l.last_raw, raw, len))
		return l.last_dev;
	// The length counts the terminating NUL.
	std::string_view dev(reinterpret_cast<const char *>(raw), len - 1);
	if (const auto nul = dev.find('\0'); nul != std::string_view::npos)
		dev = dev.substr(0, nul);
	l.last_dev = intern(dev);
	l.last_raw.assign(reinterpret_cast<const char *>(raw), len);
	return l.last_dev;
}

// The event's type, read at the common field's offset when it is known.
int Decoder::type_of(const uint8_t *p, int esize) const
{
	if (type_size_ && esize >= type_off_ + type_size_)
		return int(order_.load(p + type_off_, type_size_));
	if (esize < 2)
		return -1;
	tep_record rec{};
	rec.data = const_cast<uint8_t *>(p);
	rec.size = esize;
	return tep_data_type(tep_, &rec);
}

void Decoder::decode_record(const uint8_t *p, int esize, uint64_t ts, int cpu, PageResult &r,
			    std::vector<Sample> &out)
{
	const int id = type_of(p, esize);
	if (id < 0 || size_t(id) >= by_id_.size() || !by_id_[id].known) {
		r.other++;
		if (other_ && id >= 0)
			other_({id, p, esize, ts, cpu});
		return;
	}
	Layout &l = by_id_[id];
	if (esize < l.min_size) {
		r.invalid++;
		return;
	}
	const auto loc = uint32_t(order_.load(p + l.dev_off, 4));
	const uint32_t soff = loc & 0xffff, slen = loc >> 16;
	if (slen == 0 || soff + slen > uint32_t(esize)) {
		r.invalid++;
		return;
	}
	Sample &s = out.emplace_back();
	s.kind = l.kind;
	s.dev = device_of(l, p + soff, slen);
	s.cpu = cpu;
	s.ts = ts;
	s.value_ns = order_.load(p + l.val_off, l.val_size);
	s.aux = l.aux_off >= 0 ? uint32_t(order_.load(p + l.aux_off, l.aux_size)) : 0;
	s.hard_cpu = l.cpu_off >= 0 ? int32_t(order_.load(p + l.cpu_off, l.cpu_size)) : -1;
	s.seq = order_.load(p + l.seq_off, 8);
	if (l.irq_off >= 0)
		s.irq = int32_t(order_.load(p + l.irq_off, l.irq_size));
	if (l.flag_off >= 0)
		s.flag = order_.load(p + l.flag_off, l.flag_size) != 0;
	r.events++;
}

}  // namespace kprof
