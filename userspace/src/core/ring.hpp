// SPDX-License-Identifier: GPL-2.0
// A FIFO of trivially copyable elements in blocks of B slots, each block
// kept for reuse: the block the front leaves behind takes the back's next
// elements, so a steady stream allocates nothing. Growth adds a block: it
// moves no element. Blocks come out of batches, each twice the one before
// (up to kMaxBatch blocks), whose memory is not written until a slot is:
// so growth costs a few allocations, and the pages it touches are the
// slots in use.
//
// The threshold analysis keeps each CPU's context in one. Layouts it
// replaced cost the decoding thread more than the decoding, in the guest:
// a std::deque allocates and frees a block every few elements (the malloc
// arena grown and shrunk with mprotect, new pages faulted in); an array
// that doubles touches twice its final size in new pages and copies every
// element each time; a block allocated at a time is a system call each
// (a thread's malloc arena grows by mprotect, to the byte it needs).
#pragma once

#include <algorithm>
#include <cstddef>
#include <deque>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace kprof {

template <class T, size_t B = std::max<size_t>(1, 65536 / sizeof(T))>
class Ring {
	static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
		      "slots are raw memory: an element is copied in, never destroyed");
	static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);

public:
	static constexpr size_t kMaxBatch = 64;	// blocks

	class const_iterator {
	public:
		const_iterator(const Ring *r, size_t i) : r_(r), i_(i) {}
		const T &operator*() const { return (*r_)[i_]; }
		const T *operator->() const { return &(*r_)[i_]; }
		const_iterator &operator++()
		{
			i_++;
			return *this;
		}
		bool operator==(const const_iterator &o) const { return i_ == o.i_; }

	private:
		const Ring *r_;
		size_t i_;
	};

	Ring() = default;
	Ring(const Ring &) = delete;
	Ring &operator=(const Ring &) = delete;
	Ring(Ring &&) noexcept = default;
	Ring &operator=(Ring &&) noexcept = default;

	size_t size() const { return n_; }
	bool empty() const { return n_ == 0; }
	// Slots allocated: in use, free in a block, or in blocks not yet used.
	size_t capacity() const { return allocated_ * B; }
	// @i from the oldest.
	const T &operator[](size_t i) const
	{
		const size_t k = head_ + i;
		return *std::launder(blocks_[k / B] + k % B);
	}
	const T &front() const { return (*this)[0]; }
	const T &back() const { return (*this)[n_ - 1]; }
	const_iterator begin() const { return {this, 0}; }
	const_iterator end() const { return {this, n_}; }

	void push_back(const T &v)
	{
		const size_t k = head_ + n_;
		if (k == blocks_.size() * B)
			blocks_.push_back(take_block());
		std::construct_at(blocks_[k / B] + k % B, v);
		n_++;
	}
	void pop_front()
	{
		n_--;
		if (++head_ == B) {
			spare_.push_back(blocks_.front());
			blocks_.pop_front();
			head_ = 0;
		}
	}

private:
	T *take_block()
	{
		if (spare_.empty()) {
			const size_t n = std::min(kMaxBatch, std::max<size_t>(1, allocated_));
			batches_.push_back(std::make_unique_for_overwrite<std::byte[]>(n * B * sizeof(T)));
			auto *base = reinterpret_cast<T *>(batches_.back().get());
			for (size_t i = n; i-- > 0;)
				spare_.push_back(base + i * B);
			allocated_ += n;
		}
		T *b = spare_.back();
		spare_.pop_back();
		return b;
	}

	std::vector<std::unique_ptr<std::byte[]>> batches_;	// the memory
	std::deque<T *> blocks_;	// in order; the front one holds the oldest at head_
	std::vector<T *> spare_;	// free blocks, the next to use last
	size_t allocated_ = 0;		// blocks in batches_
	size_t head_ = 0, n_ = 0;
};

}  // namespace kprof
