//! WAV clips as the board plays them: [`Pcm`], mono 16-bit samples at one rate, read from
//! any PCM or float WAV file (stereo is mixed down; 8-, 16-, 24- and 32-bit integer and
//! 32-bit float samples are converted) and written as mono 16-bit PCM, with the few
//! operations a clip needs: linear resampling, trimming the silence around the sound so
//! that it starts at sample 0, and peak normalisation.
//!
//! A file that is not a readable WAV is a [`WavError`] naming the file, never a panic.

use std::fs::File;
use std::io::{BufReader, Read, Seek, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

/// Mono 16-bit samples at `rate` samples per second.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pcm {
    /// Samples per second.
    pub rate: u32,
    /// The samples, one channel.
    pub samples: Vec<i16>,
}

/// A WAV file that cannot be read or written. Its message is one line naming the file.
#[derive(Debug, Error)]
pub enum WavError {
    /// The file cannot be opened or is not a WAV file the reader understands.
    #[error("{}: not a readable WAV file ({source})", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the WAV reader found.
        #[source]
        source: hound::Error,
    },
    /// The file is a WAV file with something this reader does not take.
    #[error("{}: unsupported WAV file ({what})", path.display())]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// What is not supported.
        what: String,
    },
    /// The file cannot be written.
    #[error("{}: cannot write the WAV file ({source})", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What the WAV writer met.
        #[source]
        source: hound::Error,
    },
}

/// The lowest and highest sample rates accepted on reading (Hz).
const RATES: std::ops::RangeInclusive<u32> = 1000..=384_000;

impl Pcm {
    /// Samples at `rate`.
    pub fn new(rate: u32, samples: Vec<i16>) -> Pcm {
        Pcm { rate, samples }
    }

    /// `ms` milliseconds of silence at `rate`.
    pub fn silence(rate: u32, ms: u64) -> Pcm {
        Pcm::new(rate, vec![0; samples_in(rate, ms)])
    }

    /// Its length in milliseconds (rounded down; 0 at rate 0).
    pub fn duration_ms(&self) -> u64 {
        if self.rate == 0 {
            return 0;
        }
        self.samples.len() as u64 * 1000 / u64::from(self.rate)
    }

    /// True when it has no samples.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// The largest absolute sample value (0 when empty).
    pub fn peak(&self) -> u16 {
        self.samples
            .iter()
            .map(|s| s.unsigned_abs())
            .max()
            .unwrap_or(0)
    }

    /// Reads a WAV file: mono, or several channels mixed down to one; 8-, 16-, 24- or
    /// 32-bit integer or 32-bit float samples, converted to 16 bits.
    pub fn read(path: &Path) -> Result<Pcm, WavError> {
        let file = File::open(path).map_err(|e| WavError::Read {
            path: path.to_path_buf(),
            source: hound::Error::IoError(e),
        })?;
        Pcm::read_from(BufReader::new(file), path)
    }

    /// Reads WAV data from `reader`; `path` names it in errors.
    pub fn read_from<R: Read>(reader: R, path: &Path) -> Result<Pcm, WavError> {
        let read_error = |source| WavError::Read {
            path: path.to_path_buf(),
            source,
        };
        let unsupported = |what: String| WavError::Unsupported {
            path: path.to_path_buf(),
            what,
        };
        let mut reader = hound::WavReader::new(reader).map_err(read_error)?;
        let spec = reader.spec();
        if !RATES.contains(&spec.sample_rate) {
            return Err(unsupported(format!("sample rate {} Hz", spec.sample_rate)));
        }
        let channels = usize::from(spec.channels.max(1));
        // The header's length is only a hint: a corrupt one must not reserve gigabytes.
        let declared = reader.len() as usize / channels;
        let mut samples = Vec::with_capacity(declared.min(1 << 20));
        let mut mix = Mixer::new(channels);
        match (spec.sample_format, spec.bits_per_sample) {
            (hound::SampleFormat::Float, 32) => {
                for s in reader.samples::<f32>() {
                    let s = s.map_err(read_error)?;
                    let v = if s.is_finite() {
                        (f64::from(s) * 32768.0).round().clamp(-32768.0, 32767.0) as i32
                    } else {
                        0
                    };
                    if let Some(m) = mix.push(v) {
                        samples.push(m);
                    }
                }
            }
            (hound::SampleFormat::Int, bits @ (8 | 16 | 24 | 32)) => {
                for s in reader.samples::<i32>() {
                    let s = s.map_err(read_error)?;
                    let v = match bits {
                        8 => s << 8,
                        16 => s,
                        24 => s >> 8,
                        _ => s >> 16,
                    };
                    if let Some(m) = mix.push(v) {
                        samples.push(m);
                    }
                }
            }
            (format, bits) => {
                let kind = match format {
                    hound::SampleFormat::Float => "float",
                    hound::SampleFormat::Int => "integer",
                };
                return Err(unsupported(format!("{bits}-bit {kind} samples")));
            }
        }
        Ok(Pcm::new(spec.sample_rate, samples))
    }

    /// Writes a mono 16-bit PCM WAV file.
    pub fn write(&self, path: &Path) -> Result<(), WavError> {
        let write_error = |source| WavError::Write {
            path: path.to_path_buf(),
            source,
        };
        let file = File::create(path).map_err(|e| write_error(hound::Error::IoError(e)))?;
        self.write_to(std::io::BufWriter::new(file))
            .map_err(write_error)
    }

    /// Writes a mono 16-bit PCM WAV to `out` (the writer's own error).
    pub fn write_to<W: Write + Seek>(&self, out: W) -> Result<(), hound::Error> {
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: self.rate,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut writer = hound::WavWriter::new(out, spec)?;
        {
            let mut w = writer.get_i16_writer(self.samples.len() as u32);
            for &s in &self.samples {
                w.write_sample(s);
            }
            w.flush()?;
        }
        writer.finalize()
    }

    /// The same sound at `rate`, by linear interpolation between neighbouring samples. The
    /// length becomes `len * rate / self.rate`, rounded to the nearest sample.
    pub fn resample(&self, rate: u32) -> Pcm {
        if rate == self.rate || self.rate == 0 || self.samples.is_empty() {
            return Pcm::new(rate, self.samples.clone());
        }
        let (from, to) = (u64::from(self.rate), u64::from(rate));
        let len = self.samples.len() as u64;
        let out_len = (len * to + from / 2) / from;
        let last = self.samples.len() - 1;
        let samples = (0..out_len)
            .map(|i| {
                let pos = i * from;
                let idx = (pos / to) as usize;
                let frac = (pos % to) as f64 / to as f64;
                let a = f64::from(self.samples[idx.min(last)]);
                let b = f64::from(self.samples[(idx + 1).min(last)]);
                (a + (b - a) * frac).round() as i16
            })
            .collect();
        Pcm::new(rate, samples)
    }

    /// Without the silence before and after the sound: from the first sample whose absolute
    /// value exceeds `threshold` to the last one. Empty when no sample does.
    pub fn trim(&self, threshold: u16) -> Pcm {
        let loud = |s: &i16| s.unsigned_abs() > threshold;
        let Some(first) = self.samples.iter().position(loud) else {
            return Pcm::new(self.rate, Vec::new());
        };
        let last = self.samples.iter().rposition(loud).unwrap_or(first);
        Pcm::new(self.rate, self.samples[first..=last].to_vec())
    }

    /// Scaled so that its peak is `peak` of full scale (`0.0..=1.0`; clamped). Silence
    /// stays silence.
    pub fn normalize(&self, peak: f32) -> Pcm {
        let current = self.peak();
        if current == 0 {
            return self.clone();
        }
        let target = f64::from(peak.clamp(0.0, 1.0)) * 32767.0;
        self.scale(target / f64::from(current))
    }

    /// Every sample multiplied by `gain` (clipped to 16 bits).
    pub fn scale(&self, gain: f64) -> Pcm {
        let samples = self
            .samples
            .iter()
            .map(|&s| (f64::from(s) * gain).round().clamp(-32768.0, 32767.0) as i16)
            .collect();
        Pcm::new(self.rate, samples)
    }

    /// Appends `other` (at its own rate: resampled to this one first).
    pub fn append(&mut self, other: &Pcm) {
        if other.rate == self.rate {
            self.samples.extend_from_slice(&other.samples);
        } else {
            self.samples.extend(other.resample(self.rate).samples);
        }
    }
}

/// The number of samples in `ms` milliseconds at `rate` (rounded down).
pub fn samples_in(rate: u32, ms: u64) -> usize {
    usize::try_from(ms.saturating_mul(u64::from(rate)) / 1000).unwrap_or(usize::MAX)
}

/// Mixes interleaved channels down to one, frame by frame.
struct Mixer {
    channels: usize,
    sum: i64,
    count: usize,
}

impl Mixer {
    fn new(channels: usize) -> Mixer {
        Mixer {
            channels,
            sum: 0,
            count: 0,
        }
    }

    /// Adds one 16-bit-scaled sample; returns the mixed sample when a frame is complete.
    fn push(&mut self, v: i32) -> Option<i16> {
        self.sum += i64::from(v);
        self.count += 1;
        if self.count < self.channels {
            return None;
        }
        let mixed = self.sum / self.channels as i64;
        self.sum = 0;
        self.count = 0;
        Some(mixed.clamp(-32768, 32767) as i16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn wav_bytes(
        spec: hound::WavSpec,
        write: impl FnOnce(&mut hound::WavWriter<Cursor<&mut Vec<u8>>>),
    ) -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut w = hound::WavWriter::new(Cursor::new(&mut bytes), spec).unwrap();
        write(&mut w);
        w.finalize().unwrap();
        bytes
    }

    fn spec(channels: u16, bits: u16, format: hound::SampleFormat) -> hound::WavSpec {
        hound::WavSpec {
            channels,
            sample_rate: 8000,
            bits_per_sample: bits,
            sample_format: format,
        }
    }

    fn read(bytes: &[u8]) -> Result<Pcm, WavError> {
        Pcm::read_from(Cursor::new(bytes), Path::new("test.wav"))
    }

    #[test]
    fn a_clip_survives_a_round_trip_through_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("clip.wav");
        let pcm = Pcm::new(
            22050,
            (0..1000).map(|i| (i * 37 % 65536 - 32768) as i16).collect(),
        );
        pcm.write(&path).unwrap();
        assert_eq!(Pcm::read(&path).unwrap(), pcm);
        let reader = hound::WavReader::open(&path).unwrap();
        assert_eq!(reader.spec(), spec_16(22050));
    }

    fn spec_16(rate: u32) -> hound::WavSpec {
        hound::WavSpec {
            channels: 1,
            sample_rate: rate,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        }
    }

    #[test]
    fn other_sample_formats_become_16_bit_mono() {
        use hound::SampleFormat::{Float, Int};
        let bytes = wav_bytes(spec(2, 16, Int), |w| {
            for (l, r) in [(1000, 3000), (-2000, -4000), (32767, 32767)] {
                w.write_sample(l as i16).unwrap();
                w.write_sample(r as i16).unwrap();
            }
        });
        assert_eq!(read(&bytes).unwrap().samples, [2000, -3000, 32767]);

        let bytes = wav_bytes(spec(1, 8, Int), |w| {
            for s in [0i8, 64, -128, 127] {
                w.write_sample(s).unwrap();
            }
        });
        assert_eq!(read(&bytes).unwrap().samples, [0, 16384, -32768, 32512]);

        let bytes = wav_bytes(spec(1, 24, Int), |w| {
            for s in [0i32, 0x40_0000, -0x80_0000, 0x12_3456] {
                w.write_sample(s).unwrap();
            }
        });
        assert_eq!(read(&bytes).unwrap().samples, [0, 16384, -32768, 0x1234]);

        let bytes = wav_bytes(spec(1, 32, Int), |w| {
            for s in [0i32, i32::MIN, 0x4000_0000] {
                w.write_sample(s).unwrap();
            }
        });
        assert_eq!(read(&bytes).unwrap().samples, [0, -32768, 16384]);

        let bytes = wav_bytes(spec(2, 32, Float), |w| {
            for s in [0.5f32, 0.5, -1.0, -1.0, 2.0, 2.0, f32::NAN, 0.0] {
                w.write_sample(s).unwrap();
            }
        });
        assert_eq!(read(&bytes).unwrap().samples, [16384, -32768, 32767, 0]);
    }

    #[test]
    fn a_corrupt_wav_is_an_error_naming_the_file() {
        let good = wav_bytes(spec_16(8000), |w| {
            for i in 0..100 {
                w.write_sample(i as i16).unwrap();
            }
        });
        for bad in [
            b"not a wav file at all".to_vec(),
            Vec::new(),
            good[..20].to_vec(),
            good[..good.len() - 3].to_vec(),
        ] {
            let e = read(&bad).unwrap_err();
            let line = e.to_string();
            assert!(line.starts_with("test.wav: "), "{line}");
            assert!(!line.contains('\n'), "{line}");
        }
        let missing = Pcm::read(Path::new("/nonexistent/clip.wav")).unwrap_err();
        assert!(missing.to_string().starts_with("/nonexistent/clip.wav: "));
    }

    #[test]
    fn resampling_scales_the_length_and_keeps_the_shape() {
        let pcm = Pcm::new(22050, (0..22050).map(|i| (i % 1000) as i16).collect());
        for rate in [8000, 16000, 22050, 44100, 48000] {
            let r = pcm.resample(rate);
            assert_eq!(r.rate, rate);
            assert_eq!(r.samples.len(), rate as usize, "{rate}");
            assert_eq!(r.duration_ms(), 1000);
        }
        let ramp = Pcm::new(1000, vec![0, 100, 200, 300]);
        assert_eq!(
            ramp.resample(2000).samples,
            [0, 50, 100, 150, 200, 250, 300, 300]
        );
        assert_eq!(ramp.resample(500).samples, [0, 200]);
        assert!(Pcm::new(8000, Vec::new()).resample(16000).is_empty());
    }

    #[test]
    fn trimming_makes_the_sound_start_at_sample_zero() {
        let pcm = Pcm::new(8000, vec![0, 3, -5, 0, 400, -20, 0, 900, 2, 0, -1]);
        assert_eq!(pcm.trim(10).samples, [400, -20, 0, 900]);
        assert_eq!(pcm.trim(0).samples, [3, -5, 0, 400, -20, 0, 900, 2, 0, -1]);
        assert!(pcm.trim(1000).is_empty());
    }

    #[test]
    fn normalising_sets_the_peak() {
        let pcm = Pcm::new(8000, vec![0, 1000, -2000, 500]);
        let n = pcm.normalize(0.5);
        assert_eq!(n.peak(), 16384);
        assert_eq!(n.samples, [0, 8192, -16384, 4096]);
        assert_eq!(Pcm::silence(8000, 10).normalize(1.0).peak(), 0);
        assert_eq!(Pcm::silence(8000, 10).samples.len(), 80);
    }

    proptest::proptest! {
        #[test]
        fn no_bytes_make_the_reader_panic(
            cut in 0usize..80,
            flips in proptest::collection::vec((0usize..80, proptest::prelude::any::<u8>()), 0..6),
        ) {
            let mut bytes = wav_bytes(spec(2, 24, hound::SampleFormat::Int), |w| {
                for i in 0..8 {
                    w.write_sample(i * 1000).unwrap();
                }
            });
            for (at, b) in flips {
                if let Some(x) = bytes.get_mut(at) {
                    *x = b;
                }
            }
            bytes.truncate(cut.max(1));
            let _ = read(&bytes);
        }
    }
}
