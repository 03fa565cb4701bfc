// SPDX-License-Identifier: GPL-2.0
#include "core/pagequeue.hpp"

#include <algorithm>
#include <utility>

namespace kprof {

namespace {

constexpr std::pair<ReaderWay, const char *> kReaderNames[] = {
	{ReaderWay::Mmap, "mmap"},
	{ReaderWay::Splice, "splice"},
	{ReaderWay::Read, "read"},
};

}  // namespace

const char *reader_name(ReaderWay w)
{
	for (const auto &[way, name] : kReaderNames)
		if (way == w)
			return name;
	return "?";
}

std::optional<ReaderWay> reader_way(std::string_view name)
{
	for (const auto &[way, n] : kReaderNames)
		if (name == n)
			return way;
	return std::nullopt;
}

std::vector<uint8_t> PageQueue::buffer(size_t size)
{
	std::vector<uint8_t> b;
	{
		std::lock_guard lock(mu_);
		if (!spare_.empty()) {
			b = std::move(spare_.back());
			spare_.pop_back();
		}
	}
	b.resize(size);
	return b;
}

void PageQueue::recycle(std::vector<uint8_t> &&b)
{
	std::lock_guard lock(mu_);
	spare_.push_back(std::move(b));
}

void PageQueue::push(Item &&it)
{
	std::unique_lock lock(mu_);
	const uint64_t size = it.bytes.size();
	if (!items_.empty() && bytes_ + size > figures_.limit_bytes && !aborted_) {
		figures_.waits++;
		publish_locked();
		room_cv_.wait(lock, [&] { return items_.empty() || bytes_ + size <= figures_.limit_bytes || aborted_; });
	}
	if (aborted_)
		return;
	bytes_ += size;
	figures_.high_water_bytes = std::max(figures_.high_water_bytes, bytes_);
	items_.push_back(std::move(it));
	if (items_.size() - visible_ >= kWakeEvery)
		publish_locked();
}

void PageQueue::publish_locked()
{
	if (visible_ == items_.size())
		return;
	visible_ = items_.size();
	items_cv_.notify_one();
}

void PageQueue::publish()
{
	std::lock_guard lock(mu_);
	publish_locked();
}

void PageQueue::close()
{
	std::lock_guard lock(mu_);
	closed_ = true;
	visible_ = items_.size();
	items_cv_.notify_one();
}

void PageQueue::abort()
{
	std::lock_guard lock(mu_);
	aborted_ = true;
	room_cv_.notify_one();
	items_cv_.notify_one();
}

std::optional<PageQueue::Item> PageQueue::take_locked()
{
	if (aborted_ || !visible_)
		return std::nullopt;
	Item it = std::move(items_.front());
	items_.pop_front();
	visible_--;
	bytes_ -= it.bytes.size();
	room_cv_.notify_one();
	return it;
}

std::optional<PageQueue::Item> PageQueue::pop()
{
	std::unique_lock lock(mu_);
	items_cv_.wait(lock, [&] { return visible_ || closed_ || aborted_; });
	return take_locked();
}

std::optional<PageQueue::Item> PageQueue::try_pop()
{
	std::lock_guard lock(mu_);
	return take_locked();
}

bool PageQueue::aborted() const
{
	return aborted_.load(std::memory_order_relaxed);
}

QueueFigures PageQueue::figures() const
{
	std::lock_guard lock(mu_);
	return figures_;
}

}  // namespace kprof
