// SPDX-License-Identifier: GPL-2.0
#include "decoder.hpp"

#include "tep.hpp"

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kprof {

namespace {

struct EventSpec {
	EventKind kind;
	const char *name;
	const char *value;	// the latency field
	const char *aux;	// extra field, or nullptr
};

const EventSpec kSpecs[kNumKinds] = {
	{EventKind::IrqThreadLatency, "kprof_irq_thread_latency", "delta_ns", "coalesced"},
	{EventKind::IrqHandler, "kprof_irq_handler", "duration_ns", nullptr},
	{EventKind::Batch, "kprof_batch", "duration_ns", "packets"},
	{EventKind::Span, "kprof_span", "delta_ns", "id"},
};

uint64_t load(const uint8_t *p, int size)
{
	if (size == 8) {
		uint64_t v;
		std::memcpy(&v, p, 8);
		return v;
	}
	if (size == 4) {
		uint32_t v;
		std::memcpy(&v, p, 4);
		return v;
	}
	return 0;
}

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

const char *event_name(EventKind k)
{
	return kSpecs[int(k)].name;
}

TepPtr tep_from_capture(const std::filesystem::path &dir)
{
	TepPtr tep(tep_alloc());
	if (!tep)
		throw std::runtime_error("tep_alloc failed");
	tep_set_long_size(tep.get(), 8);
	tep_set_page_size(tep.get(), 4096);
	tep_set_file_bigendian(tep.get(), TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep.get(), TEP_LITTLE_ENDIAN);
	std::string header = slurp(dir / "header_page");
	if (tep_parse_header_page(tep.get(), header.data(), header.size(), 8))
		throw std::runtime_error("cannot parse " + (dir / "header_page").string());
	for (const auto &e : std::filesystem::directory_iterator(dir / "formats")) {
		std::string fmt = slurp(e.path());
		if (tep_parse_event(tep.get(), fmt.data(), fmt.size(), "kprof"))
			throw std::runtime_error("cannot parse the format " + e.path().string());
	}
	return tep;
}

Decoder::Decoder(tep_handle *tep) : tep_(tep), kbuf_(tep_kbuffer(tep))
{
	if (!kbuf_)
		throw std::runtime_error("cannot make a kbuffer for this tep handle");
	bool any = false;
	for (const auto &spec : kSpecs) {
		tep_event *ev = tep_find_event_by_name(tep, "kprof", spec.name);
		if (!ev)
			continue;
		auto need = [&](const char *field) {
			tep_format_field *f = tep_find_field(ev, field);
			if (!f)
				throw std::runtime_error(std::string(spec.name) + " has no field '" + field +
							 "': kprof.ko and kprofctl versions differ");
			return f;
		};
		Layout l;
		l.known = true;
		l.kind = spec.kind;
		tep_format_field *dev = need("dev");
		if (!(dev->flags & TEP_FIELD_IS_DYNAMIC) || dev->size != 4)
			throw std::runtime_error(std::string(spec.name) + ": 'dev' is not a __string field");
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
		if (spec.kind == EventKind::IrqThreadLatency) {
			tep_format_field *c = need("hard_cpu");
			l.cpu_off = c->offset;
			l.cpu_size = c->size;
			l.min_size = std::max(l.min_size, c->offset + c->size);
		}
		if (ev->id < 0 || ev->id > 65535)
			throw std::runtime_error("implausible event id for " + std::string(spec.name));
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
	auto it = device_ids_.find(name);
	if (it != device_ids_.end())
		return it->second;
	const auto id = uint32_t(devices_.size());
	devices_.emplace_back(name);
	device_ids_.emplace(std::string(name), id);
	return id;
}

PageResult Decoder::decode_page(const void *page, size_t size, int cpu, std::vector<Sample> &out)
{
	PageResult r;
	if (size < 16 || kbuffer_load_subbuffer(kbuf_.get(), const_cast<void *>(page)) < 0) {
		r.bad_page = true;
		return r;
	}
	r.missed = kbuffer_missed_events(kbuf_.get());
	unsigned long long ts;
	for (void *data = kbuffer_read_event(kbuf_.get(), &ts); data; data = kbuffer_next_event(kbuf_.get(), &ts)) {
		const int esize = kbuffer_event_size(kbuf_.get());
		tep_record rec{};
		rec.data = data;
		rec.size = esize;
		rec.ts = ts;
		rec.cpu = cpu;
		const int id = tep_data_type(tep_, &rec);
		if (id < 0 || size_t(id) >= by_id_.size() || !by_id_[id].known) {
			r.other++;
			continue;
		}
		const Layout &l = by_id_[id];
		const auto *p = static_cast<const uint8_t *>(data);
		if (esize < l.min_size) {
			r.invalid++;
			continue;
		}
		const auto loc = uint32_t(load(p + l.dev_off, 4));
		const uint32_t soff = loc & 0xffff, slen = loc >> 16;
		if (slen == 0 || soff + slen > uint32_t(esize)) {
			r.invalid++;
			continue;
		}
		// The length counts the terminating NUL.
		std::string_view dev(reinterpret_cast<const char *>(p + soff), slen - 1);
		if (const auto nul = dev.find('\0'); nul != std::string_view::npos)
			dev = dev.substr(0, nul);
		Sample s;
		s.kind = l.kind;
		s.dev = intern(dev);
		s.cpu = cpu;
		s.ts = ts;
		s.value_ns = load(p + l.val_off, l.val_size);
		s.aux = l.aux_off >= 0 ? uint32_t(load(p + l.aux_off, l.aux_size)) : 0;
		s.hard_cpu = l.cpu_off >= 0 ? int32_t(load(p + l.cpu_off, l.cpu_size)) : -1;
		out.push_back(s);
		r.events++;
	}
	return r;
}

}  // namespace kprof
