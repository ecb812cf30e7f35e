//! Work files: what the generator keeps on disk, in `<variant>/.rafle-work/`, between solving
//! a material and the materials that read it, all checksummed and written by temporary name:
//!
//! - [`values`]: the raw work file of a material being solved (3 bytes a position) and its
//!   journal of finished bands;
//! - [`bands`]: the band files a material with men and kings is solved into, compressed band
//!   by band;
//! - [`packed`]: a finished material's values compressed for the materials that read it, and
//!   the cache of decompressed blocks every compressed form is read through;
//! - [`value_planes`]: how band files and packed files lay out a chunk of full values before
//!   compression;
//! - [`seed_file`] and [`seed_part`]: the seeds of a kings-only material solved in bits, kept
//!   by level, and the files its seed parts leave;
//! - [`sides`]: which sides to move of a finished material's values are still read;
//! - [`varint`]: the numbers of a few bytes seed files and band directories hold.

pub(crate) mod bands;
pub(crate) mod packed;
pub(crate) mod seed_file;
pub(crate) mod seed_part;
pub(crate) mod sides;
pub(crate) mod value_planes;
pub(crate) mod values;
pub(crate) mod varint;
