//! The displacement map of displacement-mapped terrain (seed 002 §2.2.3–2.2.4).
//!
//! A grid of `width × height` samples of the displacement `d`, a length *relative to*
//! the projection direction `n` (a point of the terrain is `p + d n`, Eq 2.2: `d = 1`
//! moves `|n|` length units).
//!
//! # Node convention
//!
//! Samples sit on the **nodes** of the map, not at texel centres: sample `(i, j)`
//! (column `i < width`, row `j < height`) is the value at map coordinates
//! `(s, t) = (i, j)`, in sample units. The map covers `[0, width − 1] × [0, height − 1]`;
//! the square `[i, i + 1] × [j, j + 1]` is *cell* `(i, j)`, and between nodes the value
//! is the bilinear interpolation of the cell's four samples
//! ([`DisplacementMap::bilinear`]). Samples are stored row by row: sample `(i, j)` is
//! `values[j * width + i]`.
//!
//! # 16-bit PNG
//!
//! [`DisplacementMap::from_png`] reads a 16-bit grayscale PNG: pixel column `i`, row `j`
//! (row 0 at the top of the image) is sample `(i, j)`, and a pixel of value
//! `q ∈ [0, 65535]` is the displacement `d = offset + scale · q / 65535`. With the
//! thesis's range `[−2, 2]` (§3.5.7): `offset = −2`, `scale = 4`, a step of 6.1e-5.
//! Other bit depths and colour images are refused (8 bits are 1/64 of a sample unit at
//! that range: too coarse to be worth reading silently).

use std::io::{BufRead, Seek};
use std::path::Path;

use crate::math::Real;
use crate::shape::MAX_MAGNITUDE;

/// The most samples along either side of a [`DisplacementMap`] (2¹⁶): map coordinates
/// stay exact integers in `f32` arithmetic far beyond it.
pub const MAX_MAP_SIDE: usize = 65_536;

/// The most samples of a [`DisplacementMap`] in all (2²⁶, an 8192² map: 256 MiB of
/// `f32`), checked before a PNG's pixels are allocated, so that a file announcing a huge
/// image is refused instead of exhausting memory. The thesis's whole world is 64 × 64
/// patches of at most 64² cells (§3.5.1), 4096² samples.
pub const MAX_MAP_SAMPLES: usize = 1 << 26;

/// Why a [`DisplacementMap`] could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DisplacementMapError {
    /// A side has fewer than 2 samples (no cell) or more than [`MAX_MAP_SIDE`], or the
    /// map has more than [`MAX_MAP_SAMPLES`] samples.
    #[error(
        "displacement map must have 2..={max} samples per side and at most {MAX_MAP_SAMPLES} \
         in all, got {width} x {height}"
    )]
    BadSize {
        /// Samples per row.
        width: usize,
        /// Rows.
        height: usize,
        /// The limit, [`MAX_MAP_SIDE`].
        max: usize,
    },
    /// The number of values is not `width × height`.
    #[error("displacement map of {width} x {height} needs {expected} values, got {got}")]
    LengthMismatch {
        /// Samples per row.
        width: usize,
        /// Rows.
        height: usize,
        /// `width × height`.
        expected: usize,
        /// The number given.
        got: usize,
    },
    /// A value is NaN, infinite, or of magnitude above [`MAX_MAGNITUDE`].
    #[error("displacement sample {index} must be finite and of magnitude <= {max}, got {value}")]
    BadValue {
        /// Its index in the row-major values.
        index: usize,
        /// The value given.
        value: Real,
        /// The limit, [`MAX_MAGNITUDE`].
        max: Real,
    },
    /// The PNG mapping's `scale` or `offset` is not finite (or beyond [`MAX_MAGNITUDE`]).
    #[error("displacement map PNG {field} must be finite and of magnitude <= {max}, got {value}")]
    BadMapping {
        /// `"scale"` or `"offset"`.
        field: &'static str,
        /// The value given.
        value: Real,
        /// The limit, [`MAX_MAGNITUDE`].
        max: Real,
    },
    /// The file could not be opened or read, or is not a decodable PNG (truncated,
    /// corrupted, not a PNG).
    #[error("displacement map image: {reason}")]
    Image {
        /// The decoder's or the file system's message.
        reason: String,
    },
    /// The PNG decodes but is not 16-bit grayscale.
    #[error("displacement map image must be 16-bit grayscale, got {color} at {bits} bits")]
    UnsupportedFormat {
        /// The colour type, as the decoder names it.
        color: String,
        /// Bits per sample.
        bits: u8,
    },
}

/// A grid of displacement samples (see the module notes for the node convention),
/// validated: at least 2 × 2 samples, every value finite.
///
/// See also [`crate::terrain::DisplacedTerrain`], which reads it through base
/// triangles.
#[derive(Debug, Clone, PartialEq)]
pub struct DisplacementMap {
    width: usize,
    height: usize,
    values: Vec<Real>,
}

fn check_size(width: usize, height: usize) -> Result<(), DisplacementMapError> {
    let side = 2..=MAX_MAP_SIDE;
    if !side.contains(&width) || !side.contains(&height) || width * height > MAX_MAP_SAMPLES {
        return Err(DisplacementMapError::BadSize {
            width,
            height,
            max: MAX_MAP_SIDE,
        });
    }
    Ok(())
}

impl DisplacementMap {
    /// A map of `width × height` samples from `values`, row by row (sample `(i, j)` at
    /// `values[j * width + i]`), each a displacement relative to the projection
    /// direction.
    ///
    /// # Errors
    /// [`DisplacementMapError::BadSize`], [`DisplacementMapError::LengthMismatch`], or
    /// [`DisplacementMapError::BadValue`] naming the first bad value.
    pub fn new(
        width: usize,
        height: usize,
        values: Vec<Real>,
    ) -> Result<Self, DisplacementMapError> {
        check_size(width, height)?;
        let expected = width * height;
        if values.len() != expected {
            return Err(DisplacementMapError::LengthMismatch {
                width,
                height,
                expected,
                got: values.len(),
            });
        }
        if let Some((index, &value)) = values
            .iter()
            .enumerate()
            .find(|(_, v)| !(v.is_finite() && v.abs() <= MAX_MAGNITUDE))
        {
            return Err(DisplacementMapError::BadValue {
                index,
                value,
                max: MAX_MAGNITUDE,
            });
        }
        Ok(Self {
            width,
            height,
            values,
        })
    }

    /// A map from a 16-bit grayscale PNG file: `d = offset + scale · q / 65535` for a
    /// pixel value `q` (see the module notes).
    ///
    /// # Errors
    /// [`DisplacementMapError::Image`] when the file cannot be read or decoded,
    /// [`DisplacementMapError::UnsupportedFormat`] for another bit depth or a colour
    /// image, [`DisplacementMapError::BadMapping`] for a non-finite mapping, then as
    /// [`DisplacementMap::new`] (an image narrower or lower than 2 pixels).
    pub fn from_png(
        path: impl AsRef<Path>,
        scale: Real,
        offset: Real,
    ) -> Result<Self, DisplacementMapError> {
        let file = std::fs::File::open(path.as_ref()).map_err(|e| DisplacementMapError::Image {
            reason: format!("{}: {e}", path.as_ref().display()),
        })?;
        Self::from_png_reader(std::io::BufReader::new(file), scale, offset)
    }

    /// [`DisplacementMap::from_png`] from any buffered, seekable reader of PNG bytes (a
    /// buffered file, a `std::io::Cursor` over bytes).
    ///
    /// # Errors
    /// As [`DisplacementMap::from_png`].
    pub fn from_png_reader<R: BufRead + Seek>(
        reader: R,
        scale: Real,
        offset: Real,
    ) -> Result<Self, DisplacementMapError> {
        for (field, value) in [("scale", scale), ("offset", offset)] {
            if !(value.is_finite() && value.abs() <= MAX_MAGNITUDE) {
                return Err(DisplacementMapError::BadMapping {
                    field,
                    value,
                    max: MAX_MAGNITUDE,
                });
            }
        }
        let image = |e: png::DecodingError| DisplacementMapError::Image {
            reason: e.to_string(),
        };
        let mut decoder = png::Decoder::new(reader);
        decoder.set_transformations(png::Transformations::IDENTITY);
        let mut reader = decoder.read_info().map_err(image)?;
        let info = reader.info();
        let (width, height) = (info.width as usize, info.height as usize);
        if info.color_type != png::ColorType::Grayscale || info.bit_depth != png::BitDepth::Sixteen
        {
            return Err(DisplacementMapError::UnsupportedFormat {
                color: format!("{:?}", info.color_type),
                bits: info.bit_depth as u8,
            });
        }
        check_size(width, height)?;
        let size = reader
            .output_buffer_size()
            .ok_or_else(|| DisplacementMapError::Image {
                reason: "image too large".into(),
            })?;
        let mut buf = vec![0; size];
        let frame = reader.next_frame(&mut buf).map_err(image)?;
        let bytes = &buf[..frame.buffer_size()];
        let values: Vec<Real> = bytes
            .chunks_exact(2)
            .map(|c| offset + scale * (u16::from_be_bytes([c[0], c[1]]) as Real / 65535.0))
            .collect();
        Self::new(width, height, values)
    }

    /// Samples per row (along `s`).
    pub fn width(&self) -> usize {
        self.width
    }

    /// Rows (along `t`).
    pub fn height(&self) -> usize {
        self.height
    }

    /// The samples, row by row.
    pub fn values(&self) -> &[Real] {
        &self.values
    }

    /// Sample `(i, j)` (column `i`, row `j`), or `None` outside the map.
    pub fn sample(&self, i: usize, j: usize) -> Option<Real> {
        (i < self.width && j < self.height).then(|| self.values[j * self.width + i])
    }

    /// The bilinear interpolation of the samples at map coordinates `(s, t)` (sample
    /// units, see the module notes), or `None` outside `[0, width − 1] × [0, height − 1]`
    /// (or for a NaN coordinate). Exact at nodes.
    pub fn bilinear(&self, s: Real, t: Real) -> Option<Real> {
        let (w, h) = ((self.width - 1) as Real, (self.height - 1) as Real);
        if !((0.0..=w).contains(&s) && (0.0..=h).contains(&t)) {
            return None;
        }
        // The cell whose lower corner is at (i, j); the last row / column of nodes
        // belongs to the cell before it.
        let i = (s.floor() as usize).min(self.width - 2);
        let j = (t.floor() as usize).min(self.height - 2);
        let (a, b) = (s - i as Real, t - j as Real);
        let at = |di: usize, dj: usize| self.values[(j + dj) * self.width + i + di];
        // (1 − a) x + a y is exact at a = 0 and a = 1: nodes reproduce their samples.
        let lerp = |x: Real, y: Real, a: Real| (1.0 - a) * x + a * y;
        Some(lerp(
            lerp(at(0, 0), at(1, 0), a),
            lerp(at(0, 1), at(1, 1), a),
            b,
        ))
    }
}
