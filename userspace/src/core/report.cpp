// SPDX-License-Identifier: GPL-2.0
#include "core/report.hpp"

#include "core/aggregate.hpp"
#include "core/counters.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace kprof {

std::string fmt(double v)
{
	char buf[64];
	std::snprintf(buf, sizeof(buf), v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
	return buf;
}

namespace {

std::string csv_quote(const std::string &s)
{
	if (s.find_first_of(",\"\n") == std::string::npos)
		return s;
	std::string q = "\"";
	for (char c : s)
		q += c == '"' ? std::string("\"\"") : std::string(1, c);
	return q + "\"";
}

// @ns in units of @divisor ns (a power of ten), in fixed point to the
// nanosecond: exact for the statistics that are whole nanoseconds.
std::string csv_value(double ns, uint64_t divisor)
{
	int decimals = 0;
	for (uint64_t d = divisor; d >= 10; d /= 10)
		decimals++;
	char buf[64];
	std::snprintf(buf, sizeof(buf), "%.*f", decimals, ns / double(divisor));
	return buf;
}

}  // namespace

std::string dump_json(const nlohmann::json &j)
{
	return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

uint64_t CpuLoss::lost() const
{
	// Page headers and the overrun counters see the same overwritten
	// events; count the larger figure once.
	return std::max(header_missed, ring.overrun + ring.commit_overrun) + ring.dropped + ring.entries +
	       unaccounted();
}

uint64_t Report::buffer_lost() const
{
	uint64_t n = 0;
	for (const auto &l : loss)
		n += l.lost();
	return n;
}

uint64_t Report::not_read() const
{
	uint64_t n = 0;
	for (const auto &c : checks)
		n += c.not_read();
	return n;
}

uint64_t Report::untimed_calls() const
{
	uint64_t n = 0;
	for (const auto &f : funcs)
		n += f.lost() - f.untracked;
	return n;
}

uint64_t Report::total_missed() const
{
	return std::max(buffer_lost(), not_read()) + untracked + untimed_calls();
}

bool Report::lost_anything() const
{
	if (total_missed() || invalid)
		return true;
	return std::any_of(loss.begin(), loss.end(),
			   [](const CpuLoss &l) { return l.lossy_pages > 0 || l.bad_pages > 0; });
}

RingStats parse_ring_stats(const std::string &text)
{
	RingStats s;
	const std::pair<const char *, uint64_t RingStats::*> fields[] = {
		{"entries: ", &RingStats::entries},
		{"overrun: ", &RingStats::overrun},
		{"commit overrun: ", &RingStats::commit_overrun},
		{"dropped events: ", &RingStats::dropped},
		{"read events: ", &RingStats::read},
	};
	std::istringstream in(text);
	for (std::string line; std::getline(in, line);)
		for (const auto &[name, member] : fields)
			if (line.rfind(name, 0) == 0)
				s.*member = kernel_u64(std::string_view(line).substr(std::strlen(name)), line);
	return s;
}

RingStats ring_delta(const RingStats &a, const RingStats &b)
{
	auto d = [](uint64_t x, uint64_t y) { return y >= x ? y - x : y; };
	return {b.entries, d(a.overrun, b.overrun), d(a.commit_overrun, b.commit_overrun), d(a.dropped, b.dropped),
		d(a.read, b.read)};
}

namespace {

// In-kernel aggregation has no ring buffer: nothing to lose, nothing to cross-check.
void render_in_kernel_text(std::ostringstream &o, const Report &r)
{
	o << "\nin-kernel aggregation: " << r.events_read << " samples read from kprof.ko's histograms"
	  << ", filtered out: " << r.filtered
	  << (r.counters ? ", unpaired thread runs: " + std::to_string(r.unpaired) : "")
	  << "; no ring buffer, so no event could be lost\n";
	if (r.overflow)
		o << "  (" << r.overflow << " samples of 68.7 s or more: kprof.ko bins them together, and"
		  << " percentiles among them read as the max)\n";
}

void render_loss_text(std::ostringstream &o, const Report &r)
{
	if (r.in_kernel)
		return render_in_kernel_text(o, r);
	o << "\nevents read: " << r.events_read << ", invalid records: " << r.invalid
	  << ", other events: " << r.other << ", filtered out: " << r.filtered;
	if (r.irqs.empty())	// the device hooks' pairing; the tracker has its per-IRQ table
		o << ", unpaired thread runs: " << (r.counters ? std::to_string(r.unpaired) : "n/a");
	o << "\n";
	o << "ring buffer per CPU (decoded / read by the buffer / overrun / commit overrun / dropped / "
	     "left unread / lost per page headers):\n ";
	for (const auto &l : r.loss)
		o << " cpu" << l.cpu << "=" << l.records << "/" << l.ring.read << "/" << l.ring.overrun << "/"
		  << l.ring.commit_overrun << "/" << l.ring.dropped << "/" << l.ring.entries << "/"
		  << l.header_missed << (l.lossy_pages ? "+?" : "") << (l.bad_pages ? " (bad pages!)" : "");
	o << "\n";
	if (const auto &q = r.reader_queue) {
		o << "pages queued for decoding (" << reader_name(q->reader);
		if (q->reader == ReaderWay::Splice)
			o << ": " << q->spliced << " whole, " << q->copied << " copied by read()";
		o << "): at most " << q->high_water_bytes / 1024 << " of " << q->limit_bytes / 1024 << " KiB, "
		  << q->waits << " waits for room\n";
	}
	if (!r.checked) {
		o << "\ncross-check: " << r.check_note << "\n";
		return;
	}
	o << "\ncross-check (events read / emitted by kprof.ko while collecting):\n";
	for (const auto &c : r.checks)
		o << "  " << c.device << " " << c.event << ": " << c.read << " / " << c.emitted
		  << (c.not_read() ? "  (" + std::to_string(c.not_read()) + " NOT READ)" : "") << "\n";
	if (!r.check_note.empty())
		o << "  (" << r.check_note << ")\n";
}

void render_irqs_text(std::ostringstream &o, const Report &r)
{
	if (r.irqs.empty())
		return;
	o << "\nper IRQ: hard handler runs; of them, thread wake requests (IRQ_WAKE_THREAD); requests that\n"
	     "woke the thread from its wait; thread runs that served requests (measured); requests those\n"
	     "runs also served (coalesced); runs whose request found the thread busy in a run of its\n"
	     "handler (served by the next run); requests no measured run served (pending at the end):\n";
	char line[256];
	std::snprintf(line, sizeof(line), "  %5s %-16s %9s %9s %9s %9s %9s %9s %9s\n", "IRQ", "NAME", "HANDLER",
		      "REQUESTS", "WOKEN", "RUNS", "COALESCED", "BUSY", "UNSERVED");
	o << line;
	for (const auto &q : r.irqs) {
		std::snprintf(line, sizeof(line), "  %5d %-16s %9llu %9llu %9llu %9llu %9llu %9llu %9llu\n", q.irq,
			      q.name.c_str(), (unsigned long long)q.handlers, (unsigned long long)q.requests,
			      (unsigned long long)q.woken, (unsigned long long)q.runs, (unsigned long long)q.coalesced,
			      (unsigned long long)q.busy, (unsigned long long)q.unserved);
		o << line;
	}
}

void render_funcs_text(std::ostringstream &o, const Report &r)
{
	if (r.funcs.empty())
		return;
	o << "\nper function: calls that returned while measuring, per second, their share of the CPUs' time\n"
	     "(calls x mean over the window and " << r.cpus << " CPUs); calls the kernel's probe could not time\n"
	     "(no free instance, a probe hit inside another's handler, NMI; lost), and calls still in flight\n"
	     "at the end (not lost: they had not returned); NESTED calls began inside a call of the same\n"
	     "function in the same task (recursion, or an interrupt of it: each is timed whole, so the outer\n"
	     "call's time includes the inner's), DEPTH the most in flight at once (- where the kernel hides it):\n";
	char line[512];
	std::snprintf(line, sizeof(line), "  %-32s %10s %10s %7s %9s %9s %9s %5s\n", "FUNCTION", "CALLS", "CALLS/S",
		      "CPU%", "UNTIMED", "IN FLIGHT", "NESTED", "DEPTH");
	o << line;
	const auto opt = [](const std::optional<uint64_t> &v) { return v ? std::to_string(*v) : std::string("-"); };
	for (const auto &f : r.funcs) {
		const double share = r.duration_s > 0 && r.cpus ? f.sum_ns / (r.duration_s * 1e9 * r.cpus) : 0;
		std::snprintf(line, sizeof(line), "  %-32s %10llu %10s %7s %9llu %9llu %9s %5s\n", f.name.c_str(),
			      (unsigned long long)f.timed, fmt(r.duration_s > 0 ? f.timed / r.duration_s : 0).c_str(),
			      fmt(100 * share).c_str(), (unsigned long long)f.lost(), (unsigned long long)f.in_flight(),
			      opt(f.nested).c_str(), opt(f.depth).c_str());
		o << line;
	}
}

nlohmann::json funcs_json(const Report &r)
{
	nlohmann::json out = nlohmann::json::array();
	for (const auto &f : r.funcs)
		out.push_back({{"function", f.name},
			       {"calls", f.timed},
			       {"calls_per_s", r.duration_s > 0 ? f.timed / r.duration_s : 0.0},
			       {"cpu_share", r.duration_s > 0 && r.cpus ? f.sum_ns / (r.duration_s * 1e9 * r.cpus) : 0.0},
			       {"entered", f.calls},
			       {"missed", f.missed},
			       {"recursion_missed", f.recursion},
			       {"nmi", f.nmi},
			       {"untracked", f.untracked},
			       {"backwards", f.backwards},
			       {"in_flight", f.in_flight()},
			       {"nested", f.nested ? nlohmann::json(*f.nested) : nlohmann::json()},
			       {"max_depth", f.depth ? nlohmann::json(*f.depth) : nlohmann::json()}});
	return out;
}

}  // namespace

nlohmann::json bucket_layout()
{
	return {{"sub_bucket_bits", Histogram::kSubBucketBits}, {"buckets", Histogram::kBuckets}};
}

std::string describe(const WorkloadEnd &w)
{
	std::string cmd;
	for (const auto &a : w.command)
		cmd += (cmd.empty() ? "" : " ") + a;
	if (!w.signal)
		return cmd + ", exited with status " + std::to_string(w.status);
	const char *name = sigabbrev_np(w.signal);
	return cmd + ", killed by SIG" + (name ? name : std::to_string(w.signal)) +
	       (w.ended_by_kprofctl ? " (still running when the window closed: kprofctl ended it)" : "") +
	       ", status " + std::to_string(w.status);
}

std::string row_name(const ReportRow &row)
{
	return source_name(row.device, row.irq);
}

std::string render_text(const Report &r)
{
	std::ostringstream o;
	const double div = double(r.divisor);
	o << "kprof " << r.title << " report: " << fmt(r.duration_s) << " s (kprofctl used " << fmt(r.cpu_s)
	  << " s of CPU), values in " << r.unit << "\n";
	if (r.workload)
		o << "program: " << describe(*r.workload) << "\n";
	o << "\n";
	char line[512];
	const bool irq = !r.rows.empty() && r.rows.front().irq >= 0;
	std::snprintf(line, sizeof(line), "%-22s %-16s %4s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "EVENT",
		      irq ? "IRQ NAME" : "DEVICE", "CPU", "COUNT", "MIN", "MEAN", "STDDEV", "P50", "P90", "P99", "P99.9",
		      "MAX");
	o << line;
	if (r.rows.empty())
		o << "(no events)\n";
	for (const auto &row : r.rows) {
		const Histogram &h = *row.hist;
		std::snprintf(line, sizeof(line), "%-22s %-16s %4s %9llu %9s %9s %9s %9s %9s %9s %9s %9s\n",
			      row.event.c_str(), row_name(row).c_str(),
			      row.cpu < 0 ? "all" : std::to_string(row.cpu).c_str(),
			      (unsigned long long)h.count(), fmt(double(h.min()) / div).c_str(),
			      fmt(h.mean() / div).c_str(), fmt(h.stddev() / div).c_str(),
			      fmt(double(h.percentile(50)) / div).c_str(), fmt(double(h.percentile(90)) / div).c_str(),
			      fmt(double(h.percentile(99)) / div).c_str(), fmt(double(h.percentile(99.9)) / div).c_str(),
			      fmt(double(h.max()) / div).c_str());
		o << line;
		if (r.show_hist && row.cpu < 0 && h.count()) {
			const auto bins = h.bins(16);
			uint64_t top = 0;
			for (const auto &b : bins)
				top = std::max(top, b.count);
			for (const auto &b : bins) {
				const int bar = int(40.0 * double(b.count) / double(top) + 0.5);
				std::snprintf(line, sizeof(line), "    [%9s, %9s) %9llu |%s\n", fmt(double(b.lo) / div).c_str(),
					      fmt(double(b.hi) / div).c_str(), (unsigned long long)b.count,
					      std::string(bar, '#').c_str());
				o << line;
			}
		}
	}
	render_irqs_text(o, r);
	render_funcs_text(o, r);
	if (r.system)
		o << render_system_text(*r.system);
	render_loss_text(o, r);
	if (r.untimed_calls())
		o << "\nWARNING: " << r.untimed_calls() << " calls were not timed (UNTIMED above); the statistics do"
		  << " not cover them.\n";
	if (r.untracked)
		o << "\nWARNING: " << r.untracked << " samples were not aggregated: kprof.ko had no histogram for them,"
		  << " because an IRQ action found no free slot on its CPU (load kprof.ko with a larger girq_agg_slots)"
		  << " or the aggregations' memory reached its budget (kprof/memory; a larger agg_budget_kib).\n";
	else if (r.lost_anything() && !r.untimed_calls())
		o << "\nWARNING: events were lost (" << r.total_missed() << " missed: " << r.buffer_lost()
		  << " in the ring buffer, " << r.not_read() << " emitted but not read"
		  << (r.invalid ? ", " + std::to_string(r.invalid) + " invalid" : "")
		  << "); the statistics above do not cover them. Raise -b/--buffer-size, lower the event rate,"
		     " or remove the instance's event filters.\n";
	return o.str();
}

nlohmann::json render_json(const Report &r)
{
	using nlohmann::json;
	json stats = json::array();
	for (const auto &row : r.rows) {
		const Histogram &h = *row.hist;
		json s = {
			{"event", row.event},
			{"cpu", row.cpu < 0 ? json(nullptr) : json(row.cpu)},
			{"count", h.count()},
			{"min_ns", h.min()},
			{"mean_ns", h.mean()},
			{"stddev_ns", h.stddev()},
			{"max_ns", h.max()},
		};
		if (row.irq < 0) {
			s["device"] = row.device;
		} else {
			s["irq"] = row.irq;
			s["name"] = row.device;
		}
		json pct = json::object();
		for (const auto &p : kPercentiles)
			pct[p.name] = h.percentile(p.p);
		s["percentiles_ns"] = pct;
		s["buckets"] = h.buckets();	// [[index, count], ...]: what kprofctl diff reads
		if (r.show_hist && row.cpu < 0) {
			json bins = json::array();
			for (const auto &b : h.bins(64))
				bins.push_back({{"lo_ns", b.lo}, {"hi_ns", b.hi}, {"count", b.count}});
			s["histogram"] = bins;
		}
		stats.push_back(s);
	}
	json cpus = json::array();
	for (const auto &l : r.loss)
		cpus.push_back({{"cpu", l.cpu},
				{"pages", l.pages},
				{"bad_pages", l.bad_pages},
				{"records", l.records},
				{"read_events", l.ring.read},
				{"overrun", l.ring.overrun},
				{"commit_overrun", l.ring.commit_overrun},
				{"dropped", l.ring.dropped},
				{"unread", l.ring.entries},
				{"header_missed", l.header_missed},
				{"lossy_pages", l.lossy_pages},
				{"unaccounted", l.unaccounted()},
				{"lost", l.lost()}});
	json checks = json::array();
	for (const auto &c : r.checks)
		checks.push_back({{"device", c.device},
				  {"event", c.event},
				  {"read", c.read},
				  {"emitted", c.emitted},
				  {"not_read", c.not_read()},
				  {"gaps", c.gaps}});
	json irqs = json::array();
	for (const auto &q : r.irqs)
		irqs.push_back({{"irq", q.irq},
				{"name", q.name},
				{"handlers", q.handlers},
				{"requests", q.requests},
				{"woken", q.woken},
				{"runs", q.runs},
				{"coalesced", q.coalesced},
				{"busy", q.busy},
				{"unserved", q.unserved}});
	json out = {
		{"duration_s", r.duration_s},
		{"kprofctl_cpu_s", r.cpu_s},
		{"mode", r.in_kernel ? "in-kernel" : "streaming"},
		{"percentile_relative_error", Histogram::kRelativeError},
		{"bucket_layout", bucket_layout()},
		{"stats", stats},
		{"loss",
		 {{"events_read", r.events_read},
		  {"invalid", r.invalid},
		  {"other", r.other},
		  {"filtered", r.filtered},
		  {"unpaired", r.counters ? json(r.unpaired) : json(nullptr)},
		  {"buffer_lost", r.buffer_lost()},
		  {"not_read", r.not_read()},
		  {"missed_total", r.total_missed()},
		  {"lost", r.lost_anything()},
		  {"per_cpu", cpus}}},
		{"cross_check", r.checked ? json(checks) : json(nullptr)},
		{"cross_check_note", r.check_note},
	};
	if (!r.irqs.empty())
		out["irqs"] = irqs;
	if (!r.funcs.empty()) {
		out["functions"] = funcs_json(r);
		out["cpus"] = r.cpus;
	}
	if (const auto &q = r.reader_queue) {
		out["loss"]["reader_queue"] = {{"reader", reader_name(q->reader)},
					       {"limit_bytes", q->limit_bytes},
					       {"high_water_bytes", q->high_water_bytes},
					       {"waits", q->waits}};
		if (q->reader == ReaderWay::Splice) {
			out["loss"]["reader_queue"]["spliced_pages"] = q->spliced;
			out["loss"]["reader_queue"]["copied_pages"] = q->copied;
		}
	}
	if (r.in_kernel) {
		out["loss"]["overflow"] = r.overflow;
		out["loss"]["untracked"] = r.untracked;
	}
	if (!r.threshold.is_null())
		out["threshold"] = r.threshold;
	if (r.system)
		out["system"] = render_system_json(*r.system);
	if (const auto &w = r.workload)
		out["program"] = {{"command", w->command},
				  {"status", w->status},
				  {"signal", w->signal ? json(w->signal) : json(nullptr)},
				  {"ended_by_kprofctl", w->ended_by_kprofctl}};
	return out;
}

std::string render_csv(const Report &r)
{
	std::ostringstream o;
	// The irq column whenever any row has an IRQ: rows of two IRQs with
	// the same name must stay apart.
	const bool irq = std::any_of(r.rows.begin(), r.rows.end(), [](const ReportRow &row) { return row.irq >= 0; });
	const auto value = [&](double ns) { return csv_value(ns, r.divisor); };
	o << (irq ? "event,irq,name" : "event,device") << ",cpu,count,min_" << r.unit << ",mean_" << r.unit << ",stddev_" << r.unit;
	for (const auto &p : kPercentiles)
		o << "," << p.name << "_" << r.unit;
	o << ",max_" << r.unit << "\n";
	for (const auto &row : r.rows) {
		const Histogram &h = *row.hist;
		o << csv_quote(row.event) << ",";
		if (irq)
			o << (row.irq >= 0 ? std::to_string(row.irq) : std::string()) << ",";
		o << csv_quote(row.device) << "," << (row.cpu < 0 ? std::string("all") : std::to_string(row.cpu)) << ","
		  << h.count() << "," << value(double(h.min())) << "," << value(h.mean()) << "," << value(h.stddev());
		for (const auto &p : kPercentiles)
			o << "," << value(double(h.percentile(p.p)));
		o << "," << value(double(h.max())) << "\n";
	}
	return o.str();
}

}  // namespace kprof
