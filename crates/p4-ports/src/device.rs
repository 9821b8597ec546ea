//! The interface a switch port offers, whatever kind of socket is behind it: receive and transmit
//! *tokens*, in the manner of smoltcp's `phy::Device`.
//!
//! A token borrows the device mutably, so while one is alive nothing else can receive from or send
//! on that device: a frame that lives in memory shared with the kernel (an AF_XDP UMEM frame, a
//! TPACKET_V3 block) cannot be handed out twice, or handed back to the kernel while a slice of it
//! is still being read. The borrow checker enforces what the rings need; no run-time check does.
//!
//! - [`Device::receive`] gives a token for the next frame waiting; [`RxToken::consume`] lends the
//!   frame's bytes to a closure and, after it returns, gives the frame's memory back.
//! - [`Device::transmit`] gives a token for room to send one frame; [`TxToken::consume`] lends a
//!   buffer of the frame's length to a closure to fill, then queues the frame. A token dropped
//!   without being consumed sends nothing and gives its room back.
//! - [`Device::flush`] asks the kernel to send what the tokens queued (AF_XDP batches that request).

use std::io;
use std::os::fd::BorrowedFd;

/// A frame received, not yet read.
pub trait RxToken {
    /// Calls `f` with the frame's bytes; the frame's memory is given back after `f` returns.
    fn consume<R>(self, f: impl FnOnce(&[u8]) -> R) -> R;

    /// When the kernel took the frame in, in nanoseconds since the Unix epoch (`CLOCK_REALTIME`),
    /// where the port is told (an `AF_PACKET` ring's frame header); `None` otherwise (AF_XDP).
    fn arrival_ns(&self) -> Option<u64> {
        None
    }
}

/// Room to send one frame.
pub trait TxToken {
    /// Calls `f` with a buffer of `length` bytes to fill, then queues the frame. `Err` (nothing
    /// queued, `f` not called) when `length` is more than the device sends in one frame.
    fn consume<R>(self, length: usize, f: impl FnOnce(&mut [u8]) -> R) -> io::Result<R>;
}

/// A port's frames in and out.
pub trait Device {
    type RxToken<'a>: RxToken
    where
        Self: 'a;
    type TxToken<'a>: TxToken
    where
        Self: 'a;

    /// The next frame waiting (`Ok(None)`: none is).
    fn receive(&mut self) -> io::Result<Option<Self::RxToken<'_>>>;

    /// Room for one frame to send (`Ok(None)`: every transmit buffer is in flight).
    fn transmit(&mut self) -> io::Result<Option<Self::TxToken<'_>>>;

    /// Asks the kernel to send what has been queued.
    fn flush(&mut self) -> io::Result<()>;

    /// The descriptor that becomes readable when frames are waiting.
    fn readiness(&self) -> BorrowedFd<'_>;
}

/// Sends `frame` on `device`: a transmit token filled with a copy. `Ok(false)`: no room (every
/// transmit buffer is in flight), nothing sent.
pub fn send_copy<D: Device + ?Sized>(device: &mut D, frame: &[u8]) -> io::Result<bool> {
    match device.transmit()? {
        Some(token) => token.consume(frame.len(), |buffer| buffer.copy_from_slice(frame)).map(|()| true),
        None => Ok(false),
    }
}

/// Calls `each` with up to `limit` frames waiting on `device`, each with its arrival time if the
/// port tells it ([`RxToken::arrival_ns`]); returns how many there were.
pub fn receive_up_to<D: Device + ?Sized>(
    device: &mut D,
    limit: usize,
    mut each: impl FnMut(&[u8], Option<u64>),
) -> io::Result<usize> {
    let mut count = 0;
    while count < limit {
        let Some(token) = device.receive()? else { break };
        let arrival = token.arrival_ns();
        token.consume(|frame| each(frame, arrival));
        count += 1;
    }
    Ok(count)
}
