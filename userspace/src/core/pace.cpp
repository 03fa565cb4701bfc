// SPDX-License-Identifier: GPL-2.0
#include "core/pace.hpp"

#include <algorithm>

namespace kprof {

std::chrono::nanoseconds pass_pause(uint64_t busiest_bytes, bool capped, std::chrono::nanoseconds since,
				    uint64_t buffer_bytes, const PassPace &p)
{
	if (capped)
		return std::chrono::nanoseconds(0);
	if (busiest_bytes == 0 || since.count() <= 0 || buffer_bytes == 0)
		return p.min;
	// Time for the busiest CPU to fill its buffer, in long double: bytes
	// times nanoseconds overflows 64 bits.
	const long double fill_ns =
		(long double)since.count() * (long double)buffer_bytes / (long double)busiest_bytes;
	const long double pause = std::min(std::max(fill_ns / p.fill_share, (long double)p.min.count()),
					   fill_ns / p.most_share);
	if (pause >= (long double)p.max.count())
		return p.max;
	return std::chrono::nanoseconds((int64_t)pause);
}

void Pacer::pass(uint64_t busiest, bool capped, Clock::time_point now)
{
	last_pass_ = now;
	if (!busiest && !capped && rated_from_ && now - *rated_from_ < 2 * p_.max)
		return;
	const auto since = rated_from_ ? now - *rated_from_ : Clock::duration::zero();
	pause_ = pass_pause(busiest, capped, since, buffer_bytes_, p_);
	rated_from_ = busiest ? std::optional(now) : std::nullopt;
}

std::vector<SourceDrain> drain_rounds(size_t sources, size_t round, size_t cap,
				      const std::function<PageRead(size_t)> &read)
{
	std::vector<SourceDrain> out(sources);
	std::vector<bool> done(sources, false), partial(sources, false);
	size_t left = sources;
	while (left) {
		for (size_t i = 0; i < sources; i++) {
			if (done[i])
				continue;
			for (size_t n = 0; !done[i] && n < round; n++) {
				if (out[i].pages == cap) {
					out[i].more = true;
					done[i] = true;
					break;
				}
				const PageRead r = read(i);
				if (r.got) {
					out[i].pages++;
					out[i].bytes += r.bytes;
				}
				done[i] = !r.got || (r.last && partial[i]);
				partial[i] = r.last;
			}
			left -= done[i];
		}
	}
	return out;
}

void SplicePlan::begin(Clock::time_point now)
{
	if (!last_page_)
		last_page_ = now;
	step_ = partial_ ? Step::ReadRest : Step::Splice;
}

SplicePlan::Op SplicePlan::next() const
{
	switch (step_) {
	case Step::Splice:
	case Step::SpliceAfterRead:
		return Op::Splice;
	case Step::ReadRest:
	case Step::ReadOn:
		return Op::Read;
	case Step::Done:
		break;
	}
	return Op::Stop;
}

void SplicePlan::done(Op op, bool got, Clock::time_point now)
{
	if (got)
		last_page_ = now;
	if (op == Op::Read && got)
		partial_ = true;	// a copy up to the writer, or a whole page: either way safe
	switch (step_) {
	case Step::Splice:
		if (!got)
			step_ = last_page_ && now - *last_page_ >= quiet_ ? Step::ReadOn : Step::Done;
		break;
	case Step::ReadRest:
		step_ = Step::SpliceAfterRead;
		break;
	case Step::SpliceAfterRead:
		if (got)
			partial_ = false;
		step_ = got ? Step::Splice : Step::ReadOn;
		break;
	case Step::ReadOn:
		if (!got)
			step_ = Step::Done;
		break;
	case Step::Done:
		break;
	}
}

}  // namespace kprof
