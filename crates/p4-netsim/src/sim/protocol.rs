//! The seam between the simulator core and the protocols that run on it (DTP, PTP, MinProbe, or
//! a test's own): the core knows no protocol, each protocol knows only the core.
//!
//! A [`Protocol`] is installed with [`Sim::install`]. The core then hands it
//! - its own events when they are due, with whatever payload it chose ([`Protocol::Event`]);
//! - every frame of its kind ([`FrameKind::Protocol`]) a host receives, with the start-of-frame
//!   time at the receiving port;
//! - every frame of its kind leaving the host that made it, at the start of frame, to timestamp;
//! - if it asked ([`Cx::tap_host_sends`]), the data frames hosts hand to their NICs, to take some;
//! - if it asked ([`Cx::sample_every`]), a periodic sampling tick.
//!
//! Invariants:
//! - a handler sees the simulator read-only ([`Cx::sim`]) and acts only through its [`Cx`]: its
//!   sends and requests take effect when it returns, and all it asks for takes effect in the
//!   order it asked (an event scheduled after a send is queued after the send's own events). So
//!   no handler runs inside another, and what a protocol does cannot depend on how the core
//!   happens to call it;
//! - a protocol's pending events wait in its own slab; the core's queue holds only their keys
//!   (time, order, the protocol's id and a slot), so scheduling allocates nothing once the slab
//!   has grown to the protocol's backlog, whatever the payload;
//! - sampling is one tick for every protocol that asked, at the shortest interval asked for,
//!   sampling them in the order they asked: protocols compared side by side see the same
//!   instants.

use super::{Frame, FrameKind, Sim};
use crate::events::Slab;
use crate::time::Time;
use std::any::Any;
use std::marker::PhantomData;

/// An installed protocol: its place in installation order. Frames and queued events name their
/// protocol by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProtocolId(u32);

impl ProtocolId {
    /// The protocol that owns events the queue hands back as held away.
    pub(super) fn from_owner(owner: u32) -> Self {
        ProtocolId(owner)
    }
}

/// A typed handle on an installed protocol, to read its state and results ([`Sim::protocol`]).
pub struct Handle<P> {
    id: ProtocolId,
    protocol: PhantomData<fn() -> P>,
}

// Not derived: a derive would ask `P: Copy`, and the handle is a number whatever `P` is.
impl<P> Clone for Handle<P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for Handle<P> {}

impl<P> Handle<P> {
    /// The protocol's id.
    pub fn id(self) -> ProtocolId {
        self.id
    }
}

/// A protocol running on the simulator. Every hook but [`Protocol::on_event`] does nothing unless
/// the protocol overrides it.
pub trait Protocol: 'static {
    /// What the protocol's own events carry: timers, messages below the frame level, frames it
    /// paces itself.
    type Event: 'static;

    /// Called once by [`Sim::install`]: schedule the first events, ask for sampling or host taps.
    fn start(&mut self, _cx: &mut Cx<'_, Self::Event>) {}

    /// One of the protocol's events is due (at `cx.now()`).
    fn on_event(&mut self, event: Self::Event, cx: &mut Cx<'_, Self::Event>);

    /// A frame of this protocol has been received whole by host `node`; `sof` is when its start
    /// reached the receiving port (the receive timestamp a PHY takes).
    fn on_frame(&mut self, _node: usize, _frame: &Frame, _sof: Time, _cx: &mut Cx<'_, Self::Event>) {}

    /// A frame of this protocol starts onto the wire at the host `node` that made it; `sof` is
    /// its start of frame. The place for a hardware transmit timestamp: the frame may be
    /// rewritten, but nothing else done, since the transmitter is committed to it.
    fn on_transmit(&mut self, _node: usize, _frame: &mut Frame, _sof: Time, _sim: &Sim) {}

    /// With [`Cx::tap_host_sends`]: host `node` hands a data frame to its NIC. Return true to take
    /// it; the network then never sees it (the protocol may send it later, changed or not).
    fn on_host_send(&mut self, _node: usize, _frame: &Frame, _cx: &mut Cx<'_, Self::Event>) -> bool {
        false
    }

    /// With [`Cx::sample_every`]: the sampling tick, at `sim.now`. Sampling only observes.
    fn on_sample(&mut self, _sim: &Sim) {}
}

/// What a protocol's handler can see and do.
pub struct Cx<'a, E> {
    sim: &'a Sim,
    id: ProtocolId,
    pending: &'a mut Slab<E>,
    /// Whether this handler has left an action for the core: its events must then wait behind
    /// it, to reach the queue in the order asked.
    buffered: bool,
}

impl<'a, E> Cx<'a, E> {
    /// The simulator, read-only: clocks, ports, topology, the current time.
    pub fn sim(&self) -> &'a Sim {
        self.sim
    }

    /// The current simulated time.
    pub fn now(&self) -> Time {
        self.sim.now
    }

    /// This protocol's id.
    pub fn id(&self) -> ProtocolId {
        self.id
    }

    /// The kind of this protocol's frames carrying message type `msg` (the protocol's own
    /// numbering).
    pub fn frame_kind(&self, msg: u8) -> FrameKind {
        FrameKind::Protocol { id: self.id, msg }
    }

    /// Schedules `event` for this protocol at `at` (not before now). Events at equal times fire
    /// in the order they were scheduled, the core's own included.
    #[inline]
    pub fn schedule(&mut self, at: Time, event: E) {
        debug_assert!(at >= self.sim.now, "an event in the past");
        let slot = self.pending.insert(event);
        if self.buffered {
            self.leave(Action::Fire { at, slot });
        } else {
            // Nothing this handler asked for is waiting, so queueing now is queueing in order;
            // most handlers only schedule, and their events skip the buffer.
            self.sim.q.borrow_mut().push_away(at, self.id.0, slot);
        }
    }

    /// Host `node` sends `frame` as if an application did: its NIC queue, then the network.
    pub fn send(&mut self, node: usize, frame: Frame) {
        self.leave(Action::Send { node, frame });
    }

    /// Puts `frame` on `port` ahead of every frame queued there (a pacer that must keep its gaps).
    pub fn send_ahead(&mut self, port: usize, frame: Frame) {
        self.leave(Action::SendAhead { port, frame });
    }

    /// Asks for [`Protocol::on_sample`] every `interval` from `first` on. The tick is shared: when
    /// it already runs, it keeps its start and takes the shorter interval.
    pub fn sample_every(&mut self, first: Time, interval: Time) {
        self.leave(Action::SampleEvery { first, interval });
    }

    /// Asks for [`Protocol::on_host_send`] on every data frame a host sends.
    pub fn tap_host_sends(&mut self) {
        self.leave(Action::TapHostSends);
    }

    /// Leaves `action` for the core to carry out when the handler returns.
    fn leave(&mut self, action: Action) {
        self.buffered = true;
        self.sim.actions.borrow_mut().push(action);
    }
}

/// What a handler asked for, carried out by the core when the handler returns.
#[derive(Clone, Copy, Debug)]
pub(super) enum Action {
    Fire { at: Time, slot: u32 },
    Send { node: usize, frame: Frame },
    SendAhead { port: usize, frame: Frame },
    SampleEvery { first: Time, interval: Time },
    TapHostSends,
}

/// A protocol as the core holds it: the typed hooks behind one object-safe interface.
pub(super) trait Hosted {
    fn start(&mut self, sim: &Sim);
    fn event(&mut self, slot: u32, sim: &Sim);
    fn frame(&mut self, node: usize, frame: &Frame, sof: Time, sim: &Sim);
    fn transmit(&mut self, node: usize, frame: &mut Frame, sof: Time, sim: &Sim);
    fn host_send(&mut self, node: usize, frame: &Frame, sim: &Sim) -> bool;
    fn sample(&mut self, sim: &Sim);
    fn as_any(&self) -> &dyn Any;
}

/// A protocol with the events it has scheduled and not yet received.
struct Host<P: Protocol> {
    protocol: P,
    pending: Slab<P::Event>,
    id: ProtocolId,
}

impl<P: Protocol> Host<P> {
    fn split<'a>(&'a mut self, sim: &'a Sim) -> (&'a mut P, Cx<'a, P::Event>) {
        (&mut self.protocol, Cx { sim, id: self.id, pending: &mut self.pending, buffered: false })
    }
}

impl<P: Protocol> Hosted for Host<P> {
    fn start(&mut self, sim: &Sim) {
        let (p, mut cx) = self.split(sim);
        p.start(&mut cx);
    }

    fn event(&mut self, slot: u32, sim: &Sim) {
        let Some(event) = self.pending.take(slot) else { return };
        let (p, mut cx) = self.split(sim);
        p.on_event(event, &mut cx);
    }

    fn frame(&mut self, node: usize, frame: &Frame, sof: Time, sim: &Sim) {
        let (p, mut cx) = self.split(sim);
        p.on_frame(node, frame, sof, &mut cx);
    }

    fn transmit(&mut self, node: usize, frame: &mut Frame, sof: Time, sim: &Sim) {
        self.protocol.on_transmit(node, frame, sof, sim);
    }

    fn host_send(&mut self, node: usize, frame: &Frame, sim: &Sim) -> bool {
        let (p, mut cx) = self.split(sim);
        p.on_host_send(node, frame, &mut cx)
    }

    fn sample(&mut self, sim: &Sim) {
        self.protocol.on_sample(sim);
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Sim {
    /// Installs `protocol` and runs its [`Protocol::start`]. Protocols are numbered, sampled and
    /// offered host frames in installation order.
    pub fn install<P: Protocol>(&mut self, protocol: P) -> Handle<P> {
        let id = ProtocolId(self.protocols.len() as u32);
        self.protocols.push(Some(Box::new(Host { protocol, pending: Slab::default(), id })));
        self.with_protocol(id, |p, sim| p.start(sim));
        Handle { id, protocol: PhantomData }
    }

    /// The protocol `handle` names (`None` for a handle of another simulator's protocol).
    pub fn protocol<P: Protocol>(&self, handle: Handle<P>) -> Option<&P> {
        let hosted = self.protocols.get(handle.id.0 as usize)?.as_deref()?;
        hosted.as_any().downcast_ref::<Host<P>>().map(|h| &h.protocol)
    }

    /// Calls protocol `id` with the simulator read-only, then carries out what it asked for.
    /// `None` if there is no such protocol.
    #[inline]
    pub(super) fn with_protocol<R>(
        &mut self,
        id: ProtocolId,
        call: impl FnOnce(&mut dyn Hosted, &Sim) -> R,
    ) -> Option<R> {
        // Out of its place for the call, so that it can be handed `&mut` next to `&Sim`.
        let mut hosted = self.protocols.get_mut(id.0 as usize)?.take()?;
        let mark = self.actions.get_mut().len();
        let r = call(hosted.as_mut(), self);
        self.protocols[id.0 as usize] = Some(hosted);
        if self.actions.get_mut().len() > mark {
            self.carry_out(id, mark);
        }
        Some(r)
    }

    /// Carries out, in order, the actions protocol `id` asked for from `mark` on. One buffer
    /// serves every level: an action can call protocols again (a send reaches taps, transmit
    /// timestamps and receivers), whose actions go above ours and are gone when they return.
    fn carry_out(&mut self, id: ProtocolId, mark: usize) {
        let end = self.actions.get_mut().len();
        for i in mark..end {
            let action = self.actions.get_mut()[i];
            match action {
                Action::Fire { at, slot } => self.q.get_mut().push_away(at, id.0, slot),
                Action::Send { node, frame } => self.host_send(node, frame),
                Action::SendAhead { port, frame } => self.enqueue_front(port, frame),
                Action::SampleEvery { first, interval } => {
                    if !self.samplers.contains(&id) {
                        self.samplers.push(id);
                    }
                    self.schedule_sampling(first, interval);
                }
                Action::TapHostSends => {
                    if !self.host_taps.contains(&id) {
                        self.host_taps.push(id);
                    }
                }
            }
        }
        self.actions.get_mut().truncate(mark);
    }
}
