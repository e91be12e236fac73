//! A persistent adapter process's pipes, kept between calls as plain non-blocking descriptors
//! and registered with the runtime of the call that uses them: the runner gives every case a
//! runtime of its own, and one process serves the cases of many runtimes.

use std::io;
use std::os::fd::OwnedFd;
use std::process::Child;
use tokio::net::unix::pipe;

/// A process's pipes as plain non-blocking descriptors.
pub(super) struct Pipes {
    pub(super) stdin: OwnedFd,
    pub(super) stdout: OwnedFd,
    pub(super) stderr: OwnedFd,
}

/// The pipes, registered with the current runtime.
pub(super) struct Attached {
    pub(super) stdin: pipe::Sender,
    pub(super) stdout: pipe::Receiver,
    pub(super) stderr: pipe::Receiver,
}

impl Pipes {
    pub(super) fn of(child: &mut Child) -> Option<Pipes> {
        Some(Pipes {
            stdin: child.stdin.take()?.into(),
            stdout: child.stdout.take()?.into(),
            stderr: child.stderr.take()?.into(),
        })
    }

    /// Registers the pipes with the current runtime.
    pub(super) fn attach(self) -> io::Result<Attached> {
        Ok(Attached {
            stdin: pipe::Sender::from_owned_fd(self.stdin)?,
            stdout: pipe::Receiver::from_owned_fd(self.stdout)?,
            stderr: pipe::Receiver::from_owned_fd(self.stderr)?,
        })
    }
}

impl Attached {
    pub(super) fn detach(self) -> io::Result<Pipes> {
        Ok(Pipes {
            stdin: self.stdin.into_nonblocking_fd()?,
            stdout: self.stdout.into_nonblocking_fd()?,
            stderr: self.stderr.into_nonblocking_fd()?,
        })
    }
}
