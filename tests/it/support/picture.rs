//! `render`'s pictures, decoded: the one PNG reader of the tests.

use std::path::Path;

use super::run_status;

/// A decoded RGB picture.
pub struct Picture {
    pub width: usize,
    pub height: usize,
    pub rgb: Vec<u8>,
}

impl Picture {
    /// Decodes the PNG at `path` (it must be one, RGB).
    pub fn read(path: &Path) -> Picture {
        let bytes = std::fs::read(path).unwrap();
        assert!(
            bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
            "{}",
            path.display()
        );
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut rgb = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut rgb).unwrap();
        assert_eq!(info.color_type, png::ColorType::Rgb);
        rgb.truncate(info.buffer_size());
        Picture {
            width: info.width as usize,
            height: info.height as usize,
            rgb,
        }
    }

    /// The colour of pixel `(x, y)`.
    pub fn at(&self, x: usize, y: usize) -> [u8; 3] {
        let i = 3 * (y * self.width + x);
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }
}

/// `render TABLE --out OUT WHAT...`, which must succeed: the picture.
pub fn render(table: &Path, out: &Path, what: &[&str]) -> Picture {
    let mut args = vec![
        "render",
        table.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(what);
    run_status(&args, 0);
    Picture::read(out)
}
