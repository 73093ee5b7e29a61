//! Images: telling PNG, JPEG, GIF and WebP from their first bytes, and fitting them into what the
//! model may receive.
//!
//! An image goes to the model as it is when it is at most [`MAX_DIMENSION`] pixels on each side and
//! its base64 text fits the budget (Claude Code estimates an image's tokens as its base64 length ×
//! 0.125, so the budget is the token limit × 8 characters, and never more than the API's
//! [`API_MAX_BASE64`]). Otherwise it is scaled down (aspect kept) to at most [`MAX_DIMENSION`] on
//! each side, then re-encoded as JPEG at decreasing quality, then scaled down further, and as a last
//! resort sent as a JPEG of at most [`FALLBACK_DIMENSION`] pixels a side at quality
//! [`FALLBACK_QUALITY`].

use std::io::Cursor;

use base64::Engine as _;
use image::codecs::jpeg::JpegEncoder;
use image::imageops::FilterType;
use image::{DynamicImage, ImageFormat, ImageReader, Limits, Rgb, RgbImage};

/// Largest width or height sent, in pixels.
pub const MAX_DIMENSION: u32 = 2000;

/// Largest base64 image the Messages API accepts, in characters (5 MiB).
pub const API_MAX_BASE64: usize = 5 * 1024 * 1024;

/// Largest image file processed, in bytes.
pub const MAX_IMAGE_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Largest width or height of the last-resort JPEG.
pub const FALLBACK_DIMENSION: u32 = 400;

/// JPEG quality of the last-resort JPEG.
pub const FALLBACK_QUALITY: u8 = 20;

/// Largest width or height decoded (a guard against decompression bombs).
const MAX_DECODE_DIMENSION: u32 = 30_000;

/// Most memory the decoder may allocate.
const MAX_DECODE_ALLOC: u64 = 512 * 1024 * 1024;

/// The image formats Read sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// PNG.
    Png,
    /// JPEG.
    Jpeg,
    /// GIF.
    Gif,
    /// WebP.
    Webp,
}

impl Format {
    /// The media type.
    pub fn media_type(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
            Self::Gif => "image/gif",
            Self::Webp => "image/webp",
        }
    }

    fn image_format(self) -> ImageFormat {
        match self {
            Self::Png => ImageFormat::Png,
            Self::Jpeg => ImageFormat::Jpeg,
            Self::Gif => ImageFormat::Gif,
            Self::Webp => ImageFormat::WebP,
        }
    }
}

/// The format of an image, from its first bytes (its magic number), whatever the file's name.
pub fn sniff(head: &[u8]) -> Option<Format> {
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(Format::Png)
    } else if head.starts_with(b"\xff\xd8\xff") {
        Some(Format::Jpeg)
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some(Format::Gif)
    } else if head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP" {
        Some(Format::Webp)
    } else {
        None
    }
}

/// File names that promise an image (used only to word the error for an empty file).
pub fn has_image_extension(path: &std::path::Path) -> bool {
    path.extension()
        .and_then(|ext| ext.to_str())
        .is_some_and(|ext| ["png", "jpg", "jpeg", "gif", "webp"].iter().any(|known| ext.eq_ignore_ascii_case(known)))
}

/// An image ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fitted {
    /// The media type of `base64`.
    pub media_type: &'static str,
    /// The image bytes, base64-encoded.
    pub base64: String,
    /// Width and height in the file.
    pub original: (u32, u32),
    /// Width and height sent.
    pub shown: (u32, u32),
}

/// Length of the base64 text of `bytes` bytes.
pub fn base64_len(bytes: usize) -> usize {
    bytes.div_ceil(3) * 4
}

/// Base64 text of bytes (standard alphabet, padded).
pub fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn reader(bytes: &[u8], format: Format) -> ImageReader<Cursor<&[u8]>> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format.image_format());
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_DECODE_DIMENSION);
    limits.max_image_height = Some(MAX_DECODE_DIMENSION);
    limits.max_alloc = Some(MAX_DECODE_ALLOC);
    reader.limits(limits);
    reader
}

/// Fits an image into `max_base64` characters of base64 and [`MAX_DIMENSION`] pixels a side (see
/// the module docs).
///
/// # Errors
/// A message when the image cannot be decoded or encoded.
pub fn fit(bytes: &[u8], format: Format, max_base64: usize) -> Result<Fitted, String> {
    let original = reader(bytes, format).into_dimensions().map_err(|error| error.to_string())?;
    let (width, height) = original;
    if width <= MAX_DIMENSION && height <= MAX_DIMENSION && base64_len(bytes.len()) <= max_base64 {
        return Ok(Fitted { media_type: format.media_type(), base64: base64(bytes), original, shown: original });
    }
    let decoded = reader(bytes, format).decode().map_err(|error| error.to_string())?;
    let mut image = if width > MAX_DIMENSION || height > MAX_DIMENSION {
        let scaled = decoded.resize(MAX_DIMENSION, MAX_DIMENSION, FilterType::Triangle);
        // Scaled only: the format's own encoding (PNG for the lossless ones) may already fit.
        let (encoded, media_type) = if format == Format::Jpeg {
            (jpeg(&scaled, 85)?, Format::Jpeg.media_type())
        } else {
            (png(&scaled)?, Format::Png.media_type())
        };
        if base64_len(encoded.len()) <= max_base64 {
            return Ok(Fitted { media_type, base64: base64(&encoded), original, shown: scaled.dimensions_pair() });
        }
        scaled
    } else {
        decoded
    };
    for quality in [80, 60, 40] {
        let encoded = jpeg(&image, quality)?;
        if base64_len(encoded.len()) <= max_base64 {
            return Ok(Fitted {
                media_type: Format::Jpeg.media_type(),
                base64: base64(&encoded),
                original,
                shown: image.dimensions_pair(),
            });
        }
    }
    loop {
        let (w, h) = image.dimensions_pair();
        if w.max(h) * 3 / 4 <= FALLBACK_DIMENSION {
            break;
        }
        image = image.resize((w * 3 / 4).max(1), (h * 3 / 4).max(1), FilterType::Triangle);
        for quality in [60, 40] {
            let encoded = jpeg(&image, quality)?;
            if base64_len(encoded.len()) <= max_base64 {
                return Ok(Fitted {
                    media_type: Format::Jpeg.media_type(),
                    base64: base64(&encoded),
                    original,
                    shown: image.dimensions_pair(),
                });
            }
        }
    }
    let last = image.resize(FALLBACK_DIMENSION, FALLBACK_DIMENSION, FilterType::Triangle);
    let encoded = jpeg(&last, FALLBACK_QUALITY)?;
    Ok(Fitted {
        media_type: Format::Jpeg.media_type(),
        base64: base64(&encoded),
        original,
        shown: last.dimensions_pair(),
    })
}

trait DimensionsPair {
    fn dimensions_pair(&self) -> (u32, u32);
}

impl DimensionsPair for DynamicImage {
    fn dimensions_pair(&self) -> (u32, u32) {
        (self.width(), self.height())
    }
}

fn png(image: &DynamicImage) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    image.write_to(&mut Cursor::new(&mut out), ImageFormat::Png).map_err(|error| error.to_string())?;
    Ok(out)
}

/// JPEG of an image, transparent parts laid over white (JPEG has no transparency).
fn jpeg(image: &DynamicImage, quality: u8) -> Result<Vec<u8>, String> {
    let rgb = if image.color().has_alpha() {
        let rgba = image.to_rgba8();
        RgbImage::from_fn(rgba.width(), rgba.height(), |x, y| {
            let pixel = rgba.get_pixel(x, y);
            let alpha = u32::from(pixel[3]);
            let over_white =
                |channel: u8| u8::try_from((u32::from(channel) * alpha + 255 * (255 - alpha)) / 255).unwrap_or(u8::MAX);
            Rgb([over_white(pixel[0]), over_white(pixel[1]), over_white(pixel[2])])
        })
    } else {
        image.to_rgb8()
    };
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, quality).encode_image(&rgb).map_err(|error| error.to_string())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{GenericImageView as _, Rgba, RgbaImage};

    fn encoded(image: &DynamicImage, format: ImageFormat) -> Vec<u8> {
        let mut out = Vec::new();
        image.write_to(&mut Cursor::new(&mut out), format).unwrap();
        out
    }

    fn noise(width: u32, height: u32) -> DynamicImage {
        let mut seed = 12_345_u32;
        DynamicImage::ImageRgba8(RgbaImage::from_fn(width, height, |_, _| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let [a, b, c, d] = seed.to_le_bytes();
            Rgba([a, b, c, d | 0x80])
        }))
    }

    fn decoded(fitted: &Fitted) -> DynamicImage {
        image::load_from_memory(&base64::engine::general_purpose::STANDARD.decode(&fitted.base64).unwrap()).unwrap()
    }

    #[test]
    fn formats_are_told_by_their_bytes() {
        let small = noise(3, 2);
        assert_eq!(sniff(&encoded(&small, ImageFormat::Png)), Some(Format::Png));
        assert_eq!(sniff(&encoded(&DynamicImage::ImageRgb8(small.to_rgb8()), ImageFormat::Jpeg)), Some(Format::Jpeg));
        assert_eq!(sniff(&encoded(&small, ImageFormat::Gif)), Some(Format::Gif));
        assert_eq!(sniff(&encoded(&small, ImageFormat::WebP)), Some(Format::Webp));
        assert_eq!(sniff(b"RIFF\x00\x00\x00\x00WAVEfmt "), None);
        assert_eq!(sniff(b"plain text"), None);
        assert!(has_image_extension(std::path::Path::new("a/b.JPG")));
        assert!(!has_image_extension(std::path::Path::new("a/b.txt")));
    }

    #[test]
    fn small_images_go_as_they_are() {
        for (format, ours) in
            [(ImageFormat::Png, Format::Png), (ImageFormat::Gif, Format::Gif), (ImageFormat::WebP, Format::Webp)]
        {
            let bytes = encoded(&noise(20, 10), format);
            let fitted = fit(&bytes, ours, API_MAX_BASE64).unwrap();
            assert_eq!(fitted.base64, base64(&bytes));
            assert_eq!((fitted.media_type, fitted.original, fitted.shown), (ours.media_type(), (20, 10), (20, 10)));
        }
    }

    #[test]
    fn large_images_are_scaled_to_2000_keeping_the_aspect() {
        let wide = DynamicImage::ImageRgb8(RgbImage::from_pixel(2400, 60, Rgb([10, 200, 30])));
        let fitted = fit(&encoded(&wide, ImageFormat::Png), Format::Png, API_MAX_BASE64).unwrap();
        assert_eq!((fitted.media_type, fitted.original, fitted.shown), ("image/png", (2400, 60), (2000, 50)));
        assert_eq!(decoded(&fitted).dimensions(), (2000, 50));
    }

    #[test]
    fn images_over_the_budget_are_recompressed_then_shrunk() {
        let bytes = encoded(&noise(300, 200), ImageFormat::Png);
        // JPEG at a lower quality is enough for a moderate budget.
        let fitted = fit(&bytes, Format::Png, 60_000).unwrap();
        assert_eq!((fitted.media_type, fitted.shown), ("image/jpeg", (300, 200)));
        assert!(fitted.base64.len() <= 60_000);
        // An impossible budget ends at the last resort: at most 400 pixels, quality 20.
        let big = encoded(&noise(500, 300), ImageFormat::Png);
        let fitted = fit(&big, Format::Png, 10).unwrap();
        assert_eq!((fitted.media_type, fitted.original, fitted.shown), ("image/jpeg", (500, 300), (400, 240)));
        assert_eq!(decoded(&fitted).dimensions(), (400, 240));
    }

    #[test]
    fn images_are_shrunk_by_quarters_before_the_last_resort() {
        let image = noise(560, 200);
        let smaller = image.resize(420, 150, FilterType::Triangle);
        let budget = base64_len(jpeg(&smaller, 60).unwrap().len());
        assert!(base64_len(jpeg(&image, 40).unwrap().len()) > budget);
        let fitted = fit(&encoded(&image, ImageFormat::Png), Format::Png, budget).unwrap();
        assert_eq!((fitted.media_type, fitted.shown), ("image/jpeg", (420, 150)));
        assert!(fitted.base64.len() <= budget);
    }

    #[test]
    fn broken_images_are_errors() {
        assert!(fit(b"\x89PNG\r\n\x1a\nnot really", Format::Png, API_MAX_BASE64).is_err());
    }
}
