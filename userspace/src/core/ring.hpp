// SPDX-License-Identifier: GPL-2.0
// A FIFO in one array that grows by doubling and never shrinks: pushing
// assigns into a slot a popped element left behind, so a steady stream of
// elements (with strings that fit their old slot's) allocates nothing.
// The threshold analysis keeps each CPU's context in one: a std::deque
// allocates and frees a block every few elements, and in the guest that
// churn (the malloc arena grown and shrunk with mprotect, new pages
// faulted in) cost the decoding thread more than the decoding.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace kprof {

template <class T>
class Ring {
public:
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

	size_t size() const { return n_; }
	bool empty() const { return n_ == 0; }
	// Slots held: what size() can reach before the next doubling.
	size_t capacity() const { return slots_.size(); }
	// @i from the oldest.
	const T &operator[](size_t i) const { return slots_[(head_ + i) & (slots_.size() - 1)]; }
	const T &front() const { return (*this)[0]; }
	const T &back() const { return (*this)[n_ - 1]; }
	const_iterator begin() const { return {this, 0}; }
	const_iterator end() const { return {this, n_}; }

	void push_back(const T &v)
	{
		if (n_ == slots_.size())
			grow();
		slots_[(head_ + n_) & (slots_.size() - 1)] = v;
		n_++;
	}
	void pop_front()
	{
		head_ = (head_ + 1) & (slots_.size() - 1);
		n_--;
	}

private:
	void grow()
	{
		std::vector<T> s(slots_.empty() ? 16 : 2 * slots_.size());
		for (size_t i = 0; i < n_; i++)
			s[i] = std::move(slots_[(head_ + i) & (slots_.size() - 1)]);
		slots_.swap(s);
		head_ = 0;
	}

	std::vector<T> slots_;	// a power of two of them
	size_t head_ = 0, n_ = 0;
};

}  // namespace kprof
