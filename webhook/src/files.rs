//! A value read from a file and read again when the file changes: the organization policy
//! (`--policy`) and the lint configuration (`--lint-config`) are both [`FileValue`]s.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;

/// How a file's bytes become the value in force.
pub type Parse<T, E> = dyn Fn(&Path, &[u8]) -> Result<T, E> + Send + Sync;

/// The value in force, read from its file, and read again by [`FileValue::reload`] when the
/// file's bytes change. An invalid new version leaves the one in force.
pub struct FileValue<T, E> {
    path: Option<PathBuf>,
    current: ArcSwap<T>,
    last_read: Mutex<Vec<u8>>,
    /// `None` for a [`FileValue::fixed`] value.
    parse: Option<Box<Parse<T, E>>>,
    read_error: fn(PathBuf, std::io::Error) -> E,
}

impl<T, E> FileValue<T, E> {
    /// Reads `path` with `parse` (an IO error becomes `read_error`'s error).
    pub fn open(
        path: &Path,
        parse: impl Fn(&Path, &[u8]) -> Result<T, E> + Send + Sync + 'static,
        read_error: fn(PathBuf, std::io::Error) -> E,
    ) -> Result<FileValue<T, E>, E> {
        let bytes = std::fs::read(path).map_err(|source| read_error(path.to_path_buf(), source))?;
        let value = parse(path, &bytes)?;
        Ok(FileValue {
            path: Some(path.to_path_buf()),
            current: ArcSwap::from_pointee(value),
            last_read: Mutex::new(bytes),
            parse: Some(Box::new(parse)),
            read_error,
        })
    }

    /// A value read from no file: it never changes.
    pub fn fixed(value: T, read_error: fn(PathBuf, std::io::Error) -> E) -> FileValue<T, E> {
        FileValue {
            path: None,
            current: ArcSwap::from_pointee(value),
            last_read: Mutex::new(Vec::new()),
            parse: None,
            read_error,
        }
    }

    /// The file, if the value comes from one.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The value in force.
    pub fn current(&self) -> arc_swap::Guard<Arc<T>> {
        self.current.load()
    }

    /// Reads the file again; installs its value if the file changed and is valid. Returns
    /// whether a new value is in force. An invalid file leaves the current value in force, and
    /// is reported once (until its bytes change again).
    pub async fn reload(&self) -> Result<bool, E> {
        let (Some(path), Some(parse)) = (&self.path, &self.parse) else { return Ok(false) };
        let bytes = tokio::fs::read(path).await.map_err(|source| (self.read_error)(path.clone(), source))?;
        {
            let mut last = self.last_read.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if *last == bytes {
                return Ok(false);
            }
            // Remember the bytes even if they are invalid, so that a bad file is reported once.
            last.clone_from(&bytes);
        }
        let value = parse(path, &bytes)?;
        self.current.store(Arc::new(value));
        Ok(true)
    }
}

impl<T: fmt::Debug, E> fmt::Debug for FileValue<T, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileValue").field("path", &self.path).field("current", &self.current.load()).finish()
    }
}
