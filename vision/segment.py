"""Candidate pieces in the rectified play-area plane: square tiles (Simsala Hopp) and marbles
(Hop la bille). Candidates are generous; the classifier's `background` class rejects the
false ones.

Method: the area is rectified at a reduced scale where a piece is ~`piece_px` pixels; a
foreground mask marks what is not play-area surface (inside the arena: not red; elsewhere:
far from a heavily median-filtered local background); holes (drawings, glass highlights) are
filled; touching pieces are separated by distance-transform peaks spaced like pieces of the
known size, each peak's pixels (nearest-peak split) giving a centre and an angle.

Inputs are uint8 BGR working images; all outputs are in plane pixels (the `PlayArea` square
[0, plane_px]^2, pieces may lie outside it).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.area import (
    LINEAR8,
    PlayArea,
    area_measure,
    exposed,
    glare_distance,
    glare_spots,
    near_glare_spots,
    remove_glare,
)
from vision.image_io import Photo
from vision.preprocess import linear_to_srgb, tone_of_pixels


@dataclass(frozen=True)
class Candidates:
    """N candidate pieces in plane pixels. centers (N, 2) float64; sides (N,) piece size
    (tile side or marble diameter); angles (N,) degrees; polygons: N (4, 2) arrays or None."""

    centers: np.ndarray
    sides: np.ndarray
    angles: np.ndarray
    polygons: tuple

    def __len__(self) -> int:
        return len(self.centers)

    def take(self, keep: np.ndarray) -> Candidates:
        """The candidates where the (N,) bool mask `keep` is set, in order."""
        return Candidates(self.centers[keep], self.sides[keep], self.angles[keep],
                          tuple(p for p, k in zip(self.polygons, keep, strict=True) if k))

    def __add__(self, other: Candidates) -> Candidates:
        """These candidates followed by `other`'s."""
        return Candidates(np.concatenate([self.centers, other.centers]),
                          np.concatenate([self.sides, other.sides]),
                          np.concatenate([self.angles, other.angles]),
                          self.polygons + other.polygons)

    @classmethod
    def empty(cls) -> Candidates:
        return cls(np.zeros((0, 2)), np.zeros(0), np.zeros(0), ())


@dataclass(frozen=True)
class TileSettings:
    size_mm: float = 40.0  # tile side
    piece_px: float = 32.0  # tile side in the segmentation view
    margin: float = 0.75  # view reaches this share of the arena side beyond each edge
    # A lamp's glare spot in the view (`vision.area.glare_spots` with the arena's settings,
    # but up to this share of the view: it is the arena's close-up) has its light taken off
    # the view (`remove_glare`) before anything is compared, and its saturated core (every
    # channel at least `glare_core` within 1 + `glare_core_grow` of its ellipse, grown by
    # `glare_core_dilate` tile sides) is left out: its
    # washed-out halo had joined the tiles around it into one blob too big to be a tile
    # (0: off)
    view_glare_max_frac: float = 0.3
    view_glare_rim: float = 0.35  # and a softer rim (`AreaSettings.glare_rim`) and a
    view_glare_ring_max: float = 190.0  # lighter ring (`glare_ring_max`) than the area
    #   stage allows: the spot's own halo and white tiles light the ring 1.5-2 radii out
    # A spot counts where its centre lies on the arena's square grown by this many tile
    # sides each way (on its wall, just beyond the red): a lamp's spot on the wall washes
    # the arena's edge as one centred on it does (session 22: 7 of the 8 glare photos whose
    # tiles beside the spot were missed without a candidate had it centred 0.2-0.8 tiles
    # beyond the red, every test passed); 0: centred on the arena only
    view_glare_beyond: float = 1.0
    # A spot centred farther out, up to this many tile sides beyond the red (on the table
    # beside the arena), still has its clipped core left out and the washed bare arena within
    # its reach counted as bare (`washed_arena`), but its light is not taken off the view:
    # there the estimate of it ran deep over the arena's edge (committed shadow 0008, the
    # renderer's bright disc on a pale table 1.5 tile sides out: a phantom violet rabbit and
    # a frog lost when taken off; session 22: the glare copies' spots 1.2-1.5 tile sides out,
    # committed glare 0012, edition 2 0000, 0001, fresh 2820 0009, read better either way)
    view_glare_far: float = 2.0
    # within a spot's reach (`glare_reach`), a pixel of the bare arena's hue (within
    # `washed_hue` degrees of its median a*b*, chroma at least `washed_chroma`) at least as
    # light as its median is bare arena too, washed out (the light taken off is an estimate)
    washed_hue: float = 15.0
    washed_chroma: float = 6.0
    glare_core_grow: float = 0.15  # (the ellipse's margin, in its own radii)
    glare_core_dilate: float = 0.15  # (the core's growth, in tile sides; 0: none)
    # A tile's crop centred within `crop_glare_reach` x a glare spot's core (the area
    # stage's, `PlayArea.glare`) has the lamp's white taken off (`glare_washed_tiles`): in
    # linear light x -> x - g, g = the `crop_glare_pct` percentile of its
    # lowest channel less `crop_glare_floor` (a tile's dark drawing and the arena's red
    # have a lowest channel near 0: committed photos' crops median 0.016, 99th percentile
    # 0.09 in linear light), where g is at least `crop_glare_min` (0: off)
    crop_glare_reach: float = 3.0
    crop_glare_pct: float = 2.0
    crop_glare_floor: float = 0.02
    crop_glare_min: float = 0.03
    # A hard shadow over the arena: where the bare arena's lightness splits in two (Otsu)
    # whose linear light lies `shade_ratio` or more apart (light_eval's shadow 3-4 x) and
    # the smaller part holds `shade_min_share` of it, the local arena colour is averaged
    # over each part alone (`shade_split_colour`): one average over both had lit the shade
    # beside the shadow's edge, so bands of bare arena there passed for tiles and joined
    # the tiles into blobs too big for one (0: off)
    shade_ratio: float = 2.0
    shade_min_share: float = 0.1
    # ... and each part broad: at least `shade_coherent` of it left after an opening by a
    # disc of `shade_disc` tile sides (under the harsh light's gamma the split took the
    # tiles' shadows and the arena's print apart: scattered bits, 0-0.36 left, a few
    # 0.58-0.69; light_eval's shadow halves mostly 0.6-0.8, committed photos' own
    # rendered shadows 0.6-0.7. At 0.5: committed harsh 5.11 -> 5.56 % and teach_eval
    # taught 0.67 -> 1.33 %; 0.6 gives both back, a thin margin)
    shade_coherent: float = 0.6
    shade_disc: float = 0.25
    bg_diff: float = 30.0  # Lab distance from the local background that counts as foreground
    red_inset: float = 0.01  # inside the arena (inset by this share) the arena colour model
    arena_diff: float = 22.0  # Lab distance from the arena's fitted colour that is a tile
    arena_l_weight: float = 0.5  # lightness counts less (shadows of tiles and walls)
    surface_levels: tuple[float, ...] = (20.0, 12.0, 6.0)  # redness levels for the bare arena
    min_surface: float = 0.3  # share of the arena the bare-arena mask must cover
    arena_b_weight: float = 1.0  # weight of yellowness (b*) in that distance
    # a pixel that is not bare arena (`arena_surface`) is a tile already at this share of
    # `arena_diff` (an orange tile on the red arena in dim light)
    arena_off_surface: float = 0.5
    # a pixel whose hue lies this many degrees from the arena's local hue is a tile too (dim
    # light takes the Lab distance of orange from red but not their hues apart), if its
    # chroma reaches arena_hue_chroma (0: off)
    arena_hue_diff: float = 6.0
    arena_hue_chroma: float = 20.0
    # the bare arena fitted again without its pixels this many degrees off its first fit's
    # hue (an orange tile that passed for arena pulls the local colour toward its own; 0: off)
    arena_hue_refine: float = 3.0
    max_blob: float = 12.0  # blobs larger than this many tiles are walls or table, no tiles
    # (8 touching tiles joined by their shadows make a blob of 8.5)
    min_area: float = 0.35  # of a tile's area, smaller blobs are dropped
    max_elongation: float = 2.6  # a lone blob longer than this (long/short side) is no tile
    peak_min: float = 0.28  # distance-transform peak, as a share of the tile side
    peak_spacing: float = 0.72  # peaks closer than this share of the side are one tile
    # Second look outside the arena at a lower contrast (a green tile on a green table):
    # only lone, filled, square blobs of a tile's size there (0: off)
    low_diff: float = 20.0
    low_area: tuple[float, float] = (0.6, 1.5)  # of a tile's area
    low_side: tuple[float, float] = (0.75, 1.3)  # minAreaRect sides, of a tile's side
    low_fill: float = 0.8  # blob area / its minAreaRect area
    # Outside the arena, where the neighbourhood's two tones (`two_tone_diffs`) lie this far
    # apart (stripes, checks), a pixel near either is table (0: the one-colour median only)
    two_tone_sep: float = 30.0
    two_tone_refine: float = 15.0  # the two tones again without pixels this far from both
    # the second look skips blobs touching a tile the first look kept (not its dropped
    # scraps: a red drawing on a pale tile)
    low_beside_taken: bool = True
    # Then fainter still (a dark cat tile on a dark cloth): at each of these levels, lone
    # blobs that are tile-sized squares by these stricter limits
    faint_levels: tuple[float, ...] = (14.0, 10.0, 7.0, 5.0)
    faint_area: tuple[float, float] = (0.7, 1.3)  # of a tile's area
    faint_side: tuple[float, float] = (0.8, 1.2)  # minAreaRect sides, of a tile's side
    faint_fill: float = 0.85
    # Last, outside the arena, tile outlines: thin lines darker than around them by this
    # much (black-hat of the lightness) that close a tile-sized square (a white tile on
    # white checks shows only its edge and shadow; 0: off)
    outline_level: float = 10.0
    outline_line: float = 0.2  # black-hat disc across, of a tile side
    # the outline and shadow lie around the tile: its filled shape is a little larger
    outline_area: tuple[float, float] = (0.8, 1.7)  # of a tile's area
    outline_side: tuple[float, float] = (0.85, 1.35)  # minAreaRect sides, of a tile's side
    outline_fill: float = 0.85  # filled shape / its minAreaRect
    # a blob whose box is longer than trim_above tile sides is opened with a disc of
    # trim_disc sides (its largest part kept): thin scraps joined to a tile (the arena's
    # painted lines, glare) pulled its box and centre off the tile (0: off)
    trim_above: float = 1.1
    trim_disc: float = 0.5
    # Fewer tiles seen than the game has: a last look (`edge_tiles`) farther out, up to this
    # share of the arena side beyond each edge, for tile-sized squares enclosed by edges
    # (Canny hysteresis levels on each Lab channel; 0: off)
    edge_margin: float = 1.5
    edge_canny: tuple[float, float] = (30.0, 80.0)
    edge_area: tuple[float, float] = (0.3, 2.0)  # of a tile's area (the edges eat its rim)
    edge_side: tuple[float, float] = (0.8, 1.35)  # minAreaRect sides, of a tile's side
    edge_fill: float = 0.85  # convex hull / its minAreaRect
    # ... and squares drawn by edges (`outline_squares`: edge pixels binned by orientation,
    # correlated with a square outline at each bin's angle; a tile whose outline has gaps or
    # whose drawing splits its inside), in a view where a tile is `square_px` across, peaks
    # at least `square_min` (1: a closed 1-px outline; 0: off), `square_bins` angles in 90
    square_px: float = 16.0
    square_min: float = 0.5
    square_bins: int = 12
    # each of its four sides at least this share drawn (a table's lines draw one or two)
    square_side_min: float = 0.25
    square_most: int = 64  # the strongest this many of those only
    # A tile's cut edge is a straight line all round it; a printed table's motifs (flowers,
    # dots, leaves: read as frogs and rabbits at 0.93-1.0) are not. `square_outline`
    # measures, for each side of a candidate's square, the best share of points along its
    # middle 80 % where the Lab gradient (strongest channel, Sobel) across the side is at
    # least `drawn_grad` and within `drawn_angle` degrees of the side's normal (a disc of a
    # tile's size stays within 10 degrees of a line over a sixth of its width, within 20
    # over a third: 0.5-0.6 at 20), over shifts of the side by up to `drawn_reach` of the
    # half side and tilts of `drawn_tilts` degrees (the candidate's side and angle are a
    # blob's estimate). A piece is outlined when its four sides' mean share reaches
    # `drawn_min`. Measured (session 24, H10) on the outside candidates read as pieces:
    # flowers of printed cloths (print 3011, 3064) 0.22-0.38, true tiles there 0.48-1.0
    # (but two whose blob was no tile's square, 0.12-0.18: missed either way);
    # committed and edition 2 true tiles 0.4-1.0 but one, 0.1 (a white tile on a white
    # check, 0015); on the newsprint mat a printed picture draws a square (0.9-1.0) and a
    # true tile whose blob took in a red dot beside it did not (0.33): one piece lost there
    drawn_grad: float = 40.0
    drawn_angle: float = 10.0
    drawn_reach: float = 0.25
    drawn_tilts: tuple[float, ...] = (-6.0, -3.0, 0.0, 3.0, 6.0)
    drawn_min: float = 0.42


@dataclass(frozen=True)
class MarbleSettings:
    size_mm: float = 16.0  # marble diameter
    piece_px: float = 16.0  # diameter in the segmentation view
    inset: float = 0.008  # candidates must lie this share of the side inside the cloth (a
    # marble on the edge has its centre 8 mm = 0.013 in)
    bg_diff: float = 20.0
    min_area: float = 0.3  # of a marble's disc area
    peak_min: float = 0.3  # distance-transform peak as a share of the diameter
    peak_spacing: float = 0.7  # peaks closer than this share of the diameter are one marble
    plain_centre: bool = True
    shadow_ab: float = 8.0  # > 0: pixels darker than the cloth (by shadow_l) whose colour
    shadow_l: float = 5.0  # (a*, b*) is within shadow_ab of the cloth's are shadow, no marble
    merge: float = 0.6  # candidates closer than this share of the diameter are one marble
    max_hole: float = 0.02  # holes (glass highlights) up to this share of d^2 are filled; the
    # gap between three touching marbles is larger
    zone_depth: float = 0.29  # side zones reach this share of the cloth side from its edge
    # Second look at a lower contrast (a light blue marble on the white cloth): only lone,
    # round, marble-sized blobs away from the first look's (0: off)
    low_diff: float = 14.0
    low_area: tuple[float, float] = (0.5, 1.6)  # of a marble's disc area
    low_side: tuple[float, float] = (0.6, 1.4)  # minAreaRect sides, of the diameter (a pale
    # marble in dim light loses some rim pixels to the shadow test)
    low_fill: float = 0.65  # blob area / its minAreaRect area (a disc: 0.785)
    # the second look skips blobs touching a marble the first look found; a scrap it dropped
    # (a glint or rim too small to be a marble) no longer hides a pale marble
    low_beside_taken: bool = True
    low_shadow: bool = True  # the second look drops shadow pixels too (as the first does)
    # Third look (`tinted_marbles`): lone marble-sized blobs whose colour (a*, b*) lies this
    # far from the cloth's local colour, at least low_ab_noise x the cloth's own 90th
    # percentile of it: a pale marble in daylight or dim light is hardly darker than the
    # cloth (its rim drops out as shadow) but still tinted (0: off)
    low_ab: float = 6.0
    low_ab_noise: float = 3.0
    # The classifier's crops balanced again by the cloth's own light (`cloth_gains`): the
    # cloth is light and plain, so its colour after the crops' usual balance (a share of the
    # photo's light) is the light left on it. A cast (its brightest / darkest channel) up to
    # cloth_cast[0] is left alone (ordinary photos, a lamp's glare spot), from cloth_cast[1]
    # on it is taken off in full (a harsh coloured lamp), in between in part
    cloth_cast: tuple[float, float] = (1.10, 1.25)
    cloth_grid: int = 24  # cloth samples per side, over its inner 0.08-0.92
    # cloth samples with a channel at this level or above are clipped (a harsh lamp's light
    # beyond the sensor's range hides its cast) and left out, while a tenth of them are not
    cloth_clip: int = 250
    # A harsh lamp bends each channel by its own tone curve (a phone's processing of it:
    # a gamma per channel), which no gain takes off: the cloth's dark parts keep a cast its
    # light parts do not, and so do dark marbles (green read yellow, dark blue read red or
    # background). The cloth is one colour, so across its own shading each channel's log
    # level rises with the log brightness at a slope of 1 under any gain-only light; the
    # slopes the cloth shows (`cloth_tone`, median colours of `tone_bins` brightness bins
    # between its 5th and 95th percentile; a grid of `tone_grid` x `tone_grid`, clipped or
    # black points left out) are taken off the crops by a power per channel about the
    # cloth's median. Measured (committed, edition 2, light_eval's lights): light_eval's
    # harsh lamp B 1.35, G 0.99, R 0.67 (it is gamma 1.5 / 1.1 / 0.75) on both halves of
    # the range; ordinary photos' median 1.0, their leans (a spot's white, a shade's colour,
    # up to 0.6) on one half only, so each half's slope is read and the one nearer 1 kept.
    # A cloth whose brightness spans under `tone_span` (log) tells nothing; a largest
    # |slope - 1| up to tone_dev[0] is left alone, from tone_dev[1] taken off in full, in
    # part between (0: off). Bends 21 of the 30 committed harsh copies, none of the 40
    # committed photos nor their other lights' copies (docs/hop-la-bille.md)
    tone_grid: int = 48
    tone_bins: int = 8
    tone_span: float = 0.15
    tone_dev: tuple[float, float] = (0.2, 0.3)
    # A lamp's reflection (glare) adds about the same light to every channel, in linear
    # light; over a marble's crop (a spot is many marbles wide) it is nearly even, and the
    # classifier read the washed-out marbles of a spot's halo as background. A crop whose
    # central disc's darkest pixels (the lowest channel's `washed_pct` percentile, linear
    # light) are still at least `washed_dark` (ordinary marbles measured at most 0.27 on the
    # committed and edition-2 photos: every glass marble has a dark rim or shade) has that
    # light less `washed_floor` (their usual dark) taken off and is stretched back to the
    # same white (`washed_crops`), when
    # - at least `washed_room` of the range is left: a stretch beyond ~3x made a faint
    #   tint of a light cloth (darkest 0.79) a yellow marble on a fresh set's shadow copy
    #   (the glare's washed marbles measured darkest 0.32-0.62 but one at 0.78), and
    # - the cloth around it (the crop's ring beyond 0.47 of its side: the median of the
    #   lowest channel) is at least `washed_contrast` lighter than that darkest: a marble
    #   under the glare keeps its dark rim's step; a bright plain patch of the cloth taken
    #   for a candidate has none (under the harsh light, stretched, three read light blue).
    # washed_dark 0: off
    washed_dark: float = 0.32
    washed_pct: float = 5.0
    washed_floor: float = 0.02
    washed_room: float = 0.3
    washed_contrast: float = 0.1
    # the cloth's ring: the crop beyond this fraction of its side from the centre (a marble's
    # disc ends at 1 / (2 x the crop margin), 0.38 of the side at 1.3)
    washed_ring: float = 0.47
    # - its dark is the piece's, not a stripe's or an edge's that crosses the crop (pale
    #   cloth or card edges crossed by a grey or green stripe were stretched on 12 of the 40
    #   committed + edition-2 photos, 15 crops, P(background) down to 0.74): the ring's
    #   darkest `washed_ring_pct` % (the lowest channel) is still `washed_ring_step` lighter
    #   than the disc's darkest. A stripe runs on into the ring at both ends (the 15: at most
    #   0.026); a glass marble's rim or one-sided shade ends with it (the committed glare
    #   light's 47 stretched crops: 32 pass). Tried and not kept: the disc's darkest 10 % in
    #   at least 6 (5) of 8 angle sectors (glare 13.66 -> 14.39 %, held-out 10.18 -> 13.05
    #   (12.17) %: a lit marble's dark is mostly on one side); their mean near the centre
    #   (<= 0.35 of the radius; the 15 were 0.41-0.80), alone or with this: no better.
    #   Left: the ring is the crop's corners, so a narrow stripe straight through the middle
    #   (a tenth of the ring or less) still passes.
    #   washed_ring_step 0: off
    washed_ring_pct: float = 10.0
    washed_ring_step: float = 0.03
    # Near a lamp's glare spot (`near_glare`: a crop centred within `near_reach` x the
    # spot's core, the spot found on the marbles' photo by `glare_spots` with the looser
    # `glare_*` below, as the tiles' view takes them) the marbles of the spot's halo keep
    # only part of their dark (fresh seeds 1870/1871 under glare: of 36 + 31 marbles missed
    # on a cloth found right, most at 0.5-1.4 spot radii, darkest 5 % at 80-240 sRGB), so
    # there a crop is stretched from a darkest of `near_washed_dark` on, with
    # `near_room` of the range left and a ring `near_contrast` lighter (the ring-step rule
    # still holds). Fresh 1870/1871 glare: 15.64 -> 14.25 %, 14.55 -> 11.96 % per piece
    # (washed_dark 0.32 / 0.12 / 0.06 / 0.03 near: 14.67-15.08 / 12.68-13.83 with the
    # other two as before). near_washed_dark 0: off
    near_washed_dark: float = 0.06
    near_reach: float = 3.0
    near_room: float = 0.2
    near_contrast: float = 0.05
    glare_max_frac: float = 0.3  # (`TileSettings.view_glare_max_frac`, `view_glare_rim`,
    glare_rim: float = 0.35  # `view_glare_ring_max`: a spot's core may be a large share of
    glare_ring_max: float = 190.0  # the photo and lie on a white cloth)
    glare_scale: float = 0.5  # the photo looked at this size for the spots (a spot is many
    # marbles wide): `near_glare` on fresh 1870's glare photos 12.4 -> 4.0 ms median (CPU),
    # the same readings; 0.6 ms on ordinary photos either way (no core that large)


TILE_SETTINGS = TileSettings()
MARBLE_SETTINGS = MarbleSettings()


def rectified_view(image_bgr, area: PlayArea, px_per_mm: float, margin: float):
    """Top-down view of the area plus `margin` (share of its side) at `px_per_mm`.

    Returns (view (V, V, 3) uint8 BGR, valid (V, V) bool: inside the photo, T (3x3) plane ->
    view matrix)."""
    s = area.settings.plane_px
    k = px_per_mm / area.settings.px_per_mm  # view pixels per plane pixel
    off = margin * s
    size = int(round((s + 2 * off) * k))
    T = np.array([[k, 0, k * off], [0, k, k * off], [0, 0, 1.0]])
    M = T @ area.H_img_to_plane
    view = cv2.warpPerspective(image_bgr, M, (size, size), flags=cv2.INTER_AREA
                               if k < 0.5 else cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    h, w = image_bgr.shape[:2]
    frame = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float64)
    q = frame @ M[:, :2].T + M[:, 2]
    valid = np.zeros((size, size), np.uint8)
    if np.all(q[:, 2] > 0):  # the whole frame lies in front of the camera's horizon
        cv2.fillPoly(valid, [np.round(q[:, :2] / q[:, 2:3]).astype(np.int32)], 1)
    else:
        valid[:] = 1
    return view, valid.astype(bool), T


def without_glare(view: np.ndarray, valid: np.ndarray, area: PlayArea,
                  settings: TileSettings, arena: tuple[int, int] | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The rectified `view` (BGR uint8) with a lamp's glare spots' light taken off, `valid`
    (bool) without their saturated cores (`TileSettings.view_glare_max_frac`), and the
    spots' reach (bool, None without a spot); the first two unchanged without a spot.
    `arena`: (first, end) view px of the arena's square on both axes: only spots centred on
    it, grown by `view_glare_beyond` tile sides (its wall), count (the looser tests are for
    the red arena; a spot on the table beside it, even one the area stage's own tests take,
    had its light taken off the arena's edge too deeply: a phantom tile under light_eval's
    shadow); those centred farther out, up to `view_glare_far` tile sides, have their core
    left out and their reach given, but their light is left on; None: the whole view."""
    if settings.view_glare_max_frac <= 0:
        return view, valid, None
    glare = replace(area.settings, glare_max_frac=settings.view_glare_max_frac,
                    glare_rim=settings.view_glare_rim,
                    glare_ring_max=settings.view_glare_ring_max)
    spots = glare_spots(view, glare)
    far = []
    if arena is not None:
        def within(sp, tiles):
            grow = tiles * settings.piece_px
            return all(arena[0] - grow <= c < arena[1] + grow for c in sp[0])
        far = [sp for sp in spots if not within(sp, settings.view_glare_beyond)
               and within(sp, settings.view_glare_far)]
        spots = [sp for sp in spots if within(sp, settings.view_glare_beyond)]
    if not spots and not far:
        return view, valid, None
    yy, xx = np.mgrid[0:view.shape[0], 0:view.shape[1]].astype(np.float32)
    near = np.zeros(view.shape[:2], bool)
    reach = np.zeros(view.shape[:2], bool)
    for spot in spots + far:  # (a white tile elsewhere is as bright as a spot's core)
        d = glare_distance(xx, yy, spot)
        near |= d <= 1.0 + settings.glare_core_grow
        reach |= d <= glare.glare_reach
    core = ((view.min(axis=2) >= glare.glare_core) & near).astype(np.uint8)
    r = int(round(settings.glare_core_dilate * settings.piece_px))
    if r:
        core = cv2.dilate(core, cv2.getStructuringElement(cv2.MORPH_ELLIPSE,
                                                          (2 * r + 1, 2 * r + 1)))
    return remove_glare(view, glare, spots), valid & (core == 0), reach


def washed_arena(lab: np.ndarray, surface: np.ndarray, zone: np.ndarray,
                 settings: TileSettings) -> np.ndarray:
    """bool mask: the pixels of `zone` (a glare spot's reach) that are bare arena washed out
    by it: of the `surface`'s (the bare arena's) median hue within `washed_hue` degrees, at
    least `washed_chroma` of chroma, and at least as light as its median. `lab`: float32 Lab."""
    if not surface.any() or not zone.any():
        return np.zeros(surface.shape, bool)
    med = np.median(lab[surface], axis=0)
    chroma = np.hypot(lab[..., 1] - 128.0, lab[..., 2] - 128.0)
    return zone & (hue_diff(lab, med, 0.0) <= settings.washed_hue) & \
        (chroma >= settings.washed_chroma) & (lab[..., 0] >= med[0])


def background_lab8(view: np.ndarray, piece_px: float) -> tuple[np.ndarray, np.ndarray]:
    """(Lab of the view, its local background: the median over ~3 pieces), both uint8
    (V, V, 3) (OpenCV's 8-bit Lab)."""
    lab = cv2.cvtColor(view, cv2.COLOR_BGR2LAB)
    f = 4
    small = cv2.resize(lab, (view.shape[1] // f, view.shape[0] // f),
                       interpolation=cv2.INTER_AREA)
    k = max(3, int(3 * piece_px / f) | 1)
    bg = cv2.medianBlur(small, min(k, 255))
    bg = cv2.resize(bg, (view.shape[1], view.shape[0]), interpolation=cv2.INTER_LINEAR)
    return lab, bg


def background_lab(view: np.ndarray, piece_px: float) -> tuple[np.ndarray, np.ndarray]:
    """`background_lab8` as float32 (V, V, 3) (OpenCV's 8-bit Lab scale)."""
    lab, bg = background_lab8(view, piece_px)
    return lab.astype(np.float32), bg.astype(np.float32)


def lab_diff_planes(lab8: np.ndarray, bg8: np.ndarray) -> list[np.ndarray]:
    """`background_lab`'s lab - bg as three contiguous float32 planes (L, a, b): the same
    whole numbers, without the two float32 copies (uint8 planes split, then subtracted:
    splitting a float32 image costs several times more)."""
    return [cv2.subtract(x, y, dtype=cv2.CV_32F)
            for x, y in zip(cv2.split(lab8), cv2.split(bg8), strict=True)]


BG_L_WEIGHT = 0.6  # the background difference's lightness weight: shading and folds count
#                    less than colour (`background_diff`, `find_marbles`, `two_tone_diffs`)


def _lab_dist(d: np.ndarray, l_weight: float) -> np.ndarray:
    """Length of Lab differences (..., 3) float32, lightness weighted by `l_weight`."""
    return _planes_dist(d[..., 0], d[..., 1], d[..., 2], l_weight)


def _planes_dist(d0: np.ndarray, d1: np.ndarray, d2: np.ndarray, l_weight: float
                 ) -> np.ndarray:
    """`_lab_dist` of differences given as three float32 planes (contiguous planes cost
    about half the time of the channels of one (..., 3) array)."""
    out = d0 * l_weight
    out *= out  # (in place: the same sums as d0 * d0 + d1 * d1 + d2 * d2, fewer arrays)
    out += d1 * d1
    out += d2 * d2
    return np.sqrt(out, out=out)


def background_diff(view: np.ndarray, piece_px: float, parts=None) -> np.ndarray:
    """Lab distance of each pixel from a local background estimate (median over ~3 pieces),
    float32 (V, V). `parts`: `background_lab`'s result, if already computed."""
    lab, bg = parts if parts is not None else background_lab(view, piece_px)
    return _lab_dist(lab - bg, BG_L_WEIGHT)  # (lightness changes count less than colour)


def two_tone_diffs(parts, piece_px: float, min_sep: float, l_weight: float = BG_L_WEIGHT,
                   refine: float = 0.0) -> tuple[np.ndarray, ...]:
    """Lab distance of each pixel from its table, float32 (V, V), on a table of one or two
    tones. The two tones: the local colour of the pixels darker than the local median
    lightness, and of those lighter. Where they lie at least `min_sep` apart (stripes,
    checks) a pixel of either one is table: its distance is to the nearer tone. Elsewhere
    (a plain table, where a piece's own pixels would pull one tone towards it) it is
    `background_diff`'s distance from the one-colour median. `parts`: `background_lab`.
    Returns that map, and (`refine` > 0) a second one with the tones averaged again
    without the pixels farther than `refine` from both (a piece's own pixels had pulled
    the tone of its side towards its colour)."""
    lab, bg = parts
    h, w = lab.shape[:2]
    f = 8  # the tones are averaged at 1/8 size (smooth anyway)
    sw, sh = max(1, w // f), max(1, h // f)
    k = max(1.0, 1.5 * piece_px / f)
    # (the Lab channels as contiguous planes, and the tones' sums made and resized plane by
    # plane: the same numbers as on the (V, V, 3) array, each channel's on its own, in
    # about half the time)
    planes = cv2.split(lab)

    def small_blur(a):
        return cv2.GaussianBlur(cv2.resize(a, (sw, sh), interpolation=cv2.INTER_AREA),
                                (0, 0), k)

    def small_tone(wt):  # the blurred sums of lab * wt, (sh, sw, 3)
        return cv2.GaussianBlur(cv2.merge([cv2.resize(p * wt, (sw, sh),
                                                      interpolation=cv2.INTER_AREA)
                                           for p in planes]), (0, 0), k)

    def up(a):
        return cv2.resize(a, (w, h), interpolation=cv2.INTER_LINEAR)

    def dist_to(tone):  # `_lab_dist(lab - up(tone), l_weight)`, plane by plane
        return _planes_dist(*(p - up(t) for p, t in zip(planes, cv2.split(tone),
                                                          strict=True)), l_weight)

    dark = (planes[0] < bg[..., 0]).astype(np.float32)
    light = 1.0 - dark
    plain = _lab_dist(lab - bg, l_weight)
    passes = 2 if refine > 0 else 1
    weight = None
    out = []
    for _ in range(passes):
        wd, wl = (dark, light) if weight is None else (dark * weight, light * weight)
        share_dark, share_light = small_blur(wd), small_blur(wl)
        tone_dark = small_tone(wd) / np.maximum(share_dark, 1e-3)[..., None]
        tone_light = small_tone(wl) / np.maximum(share_light, 1e-3)[..., None]
        if weight is None:  # two tones only where each covers a fair share of the
            # neighbourhood and they differ
            two = (np.minimum(share_dark, share_light) >= 0.15) & \
                (_lab_dist(tone_dark - tone_light, l_weight) >= min_sep)
            if not two.any():
                return (plain,) * passes
            two = up(two.astype(np.float32)) > 0.5
        near = np.minimum(dist_to(tone_dark), dist_to(tone_light))
        out.append(np.where(two, near, plain))
        if len(out) < passes:  # (the last pass needs no weight for a next one)
            weight = (near <= refine).astype(np.float32)
    return tuple(out)


def surface_colour(lab: np.ndarray, surface: np.ndarray, sigma: float) -> np.ndarray | None:
    """The local colour of the `surface` pixels (bool mask) of `lab`, the view's Lab, float32
    (H, W, 3) in OpenCV's 8-bit Lab scale: likewise, a normalised Gaussian average (sigma
    pixels) of the surface's colour, so shadows and light gradients follow; None for a
    surface of under 10 pixels."""
    m = surface.astype(np.float32)
    if m.sum() < 10:
        return None
    return _weighted_blur(lab, m, sigma)[0]


def _weighted_blur(lab: np.ndarray, m: np.ndarray, sigma: float
                   ) -> tuple[np.ndarray, np.ndarray]:
    """`lab` (H, W, 3) averaged over the weights `m` (float32 (H, W), 0-1) by a normalised
    Gaussian of `sigma` px, worked out at 1/4 size (it is smooth anyway): (that average at
    full size, float32 (H, W, 3); the blurred weights at 1/4 size, float32)."""
    f = 4
    h, w = m.shape
    sw, sh = max(1, w // f), max(1, h // f)
    k = max(1.0, sigma / f)
    num = cv2.GaussianBlur(cv2.resize(lab * m[..., None], (sw, sh),
                                      interpolation=cv2.INTER_AREA), (0, 0), k)
    den = cv2.GaussianBlur(cv2.resize(m, (sw, sh), interpolation=cv2.INTER_AREA), (0, 0), k)
    return cv2.resize(num / np.maximum(den[..., None], 1e-3), (w, h),
                      interpolation=cv2.INTER_LINEAR), den


def _lab_luminance(l8: np.ndarray) -> np.ndarray:
    """Relative luminance Y (linear light, 0-1) of OpenCV 8-bit-scale Lab lightness."""
    return ((np.asarray(l8, np.float32) * (100.0 / 255.0) + 16.0) / 116.0) ** 3


def shade_split_colour(lab: np.ndarray, surface: np.ndarray, sigma: float,
                       settings: TileSettings) -> np.ndarray | None:
    """`surface_colour`, but where the bare arena (`surface`, bool) is split by a hard
    shadow (`TileSettings.shade_ratio`): its lit and its shaded part averaged each alone,
    and every pixel given its own part's average (a pixel off the surface, a tile: the
    part more of whose surface lies near it). float32 (H, W, 3) 8-bit-scale Lab, or None."""
    if settings.shade_ratio <= 0 or np.count_nonzero(surface) < 20:
        return surface_colour(lab, surface, sigma)
    light = np.clip(lab[..., 0][surface], 0, 255).astype(np.uint8).reshape(-1, 1)
    t, _ = cv2.threshold(light, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    lit = surface & (lab[..., 0] > t)
    shade = surface & ~lit
    small = min(np.count_nonzero(lit), np.count_nonzero(shade))
    if small < settings.shade_min_share * np.count_nonzero(surface):
        return surface_colour(lab, surface, sigma)
    ratio = float(np.median(_lab_luminance(lab[..., 0][lit]))) / \
        max(float(np.median(_lab_luminance(lab[..., 0][shade]))), 1e-4)
    if ratio < settings.shade_ratio:
        return surface_colour(lab, surface, sigma)
    r = max(1, int(round(settings.shade_disc * sigma / 1.5)))  # (sigma: 1.5 tile sides)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    for part in (lit, shade):  # each part a broad region, not scattered dark bits
        m = part.astype(np.uint8)
        if np.count_nonzero(cv2.morphologyEx(m, cv2.MORPH_OPEN, disc)) < \
                settings.shade_coherent * np.count_nonzero(m):
            return surface_colour(lab, surface, sigma)
    h, w = surface.shape
    parts = []
    for part in (lit, shade):  # (each part's colour, and how much of it lies near)
        colour, den = _weighted_blur(lab, part.astype(np.float32), sigma)
        parts.append((colour, cv2.resize(den, (w, h), interpolation=cv2.INTER_LINEAR)))
    (lit_col, lit_den), (shade_col, shade_den) = parts
    use_lit = np.where(surface, lit, lit_den >= shade_den)
    return np.where(use_lit[..., None], lit_col, shade_col).astype(np.float32)


def surface_diff(lab: np.ndarray, local: np.ndarray | None, l_weight: float = 0.5,
                 b_weight: float = 1.0) -> np.ndarray:
    """Lab distance of each pixel of `lab` from the local colour `local` (`surface_colour`'s
    result), lightness weighed by `l_weight`, yellowness by `b_weight`. float32 (H, W)."""
    if local is None:
        return np.full(lab.shape[:2], 255.0, np.float32)
    d = lab - local
    d[..., 0] *= l_weight  # shading changes lightness most
    d[..., 2] *= b_weight  # orange on red differs mostly in yellowness (b*)
    return np.sqrt((d * d).sum(axis=2))


def hue_diff(lab: np.ndarray, local: np.ndarray | None, min_chroma: float) -> np.ndarray:
    """Hue difference (degrees, 0-180) of each pixel of `lab` from the local surface colour
    `local` (`surface_colour`'s result), float32 (H, W); 0 where the pixel's chroma is under
    `min_chroma` (grey, white, black: no hue to speak of)."""
    if local is None:
        return np.zeros(lab.shape[:2], np.float32)
    a, b = lab[..., 1] - 128.0, lab[..., 2] - 128.0
    la, lb = local[..., 1] - 128.0, local[..., 2] - 128.0
    # the angle between (a, b) and (la, lb)
    ang = np.degrees(np.abs(np.arctan2(a * lb - b * la, a * la + b * lb)))
    ang[np.hypot(a, b) < min_chroma] = 0.0
    return ang.astype(np.float32)


def arena_surface(inner: np.ndarray, area: PlayArea, settings: TileSettings,
                  lab: np.ndarray) -> np.ndarray:
    """bool mask of the bare arena in the rectified arena view `inner` (BGR uint8; `lab` its
    Lab, float32): its red pixels at the first redness level that covers `min_surface` of it
    (warm or washed-out light lowers redness), else the pixels near the view's median
    colour."""
    n = inner.shape[0] * inner.shape[1]
    measure = area_measure(lab, area.settings)  # (one for every level)
    for level in settings.surface_levels:
        m = measure > level
        if m.sum() >= settings.min_surface * n:
            return m
    med = np.median(lab.reshape(-1, 3), axis=0)
    return np.sqrt(((lab - med) ** 2).sum(axis=2)) < settings.arena_diff


def components(mask: np.ndarray, connectivity: int):
    """`cv2.connectedComponentsWithStats` of the uint8 `mask`: (n, labels, stats, centroids),
    the labels uint16 wherever no more than 65535 components can come out (the same values
    in half the memory: about 0.4 ms less a call on a 480-px view), else int32. The bound:
    one pixel at least per component, and with 8-connectivity one component at most per
    2 x 2 block (its pixels all touch)."""
    h, w = mask.shape
    bound = cv2.countNonZero(mask)
    if connectivity == 8:
        bound = min(bound, ((h + 1) // 2) * ((w + 1) // 2))
    return cv2.connectedComponentsWithStats(
        mask, connectivity=connectivity, ltype=cv2.CV_16U if bound <= 65535 else cv2.CV_32S)


def fill_holes(mask: np.ndarray, max_area: float) -> np.ndarray:
    """uint8 {0, 1} mask with its enclosed holes smaller than `max_area` pixels filled (the
    drawing on a tile, a marble's highlight; not the arena inside the castle walls)."""
    inv = (mask == 0).astype(np.uint8)
    # (a hole inside the image has 4 mask pixels at least around it, and each mask pixel
    # borders 4 holes at most; the others each hold a pixel of the image's border)
    h, w = mask.shape
    if h * w - cv2.countNonZero(inv) + 2 * (h + w) <= 65535:  # 16-bit labels, and their
        # areas from a histogram: OpenCV's stats cost ~1 ms more a call where one component
        # covers most of the image (the table around a few holes); exact counts (< 2^24)
        n, labels = cv2.connectedComponents(inv, connectivity=4, ltype=cv2.CV_16U)
        area = cv2.calcHist([labels], [0], None, [n], [0, n]).ravel()
    else:
        n, labels, stats, _ = cv2.connectedComponentsWithStats(inv, connectivity=4)
        area = stats[:, cv2.CC_STAT_AREA]
    small = np.zeros(n, np.uint8)  # (label 0: the mask's own pixels)
    small[1:] = area[1:] < max_area
    if not small.any():
        return mask.copy()
    return mask | np.take(small, labels)


def split_peaks(mask: np.ndarray, piece_px: float, peak_min: float, spacing: float,
                min_area: float, expected_area: float, max_blob: float = 8.0):
    """Separate touching pieces. mask: uint8 {0, 1}. Returns a list of (N_i, 2) int pixel
    coordinate arrays (x, y), one per piece: peaks of the distance transform at least
    `spacing * piece_px` apart, each blob's pixels split by nearest peak."""
    n_lab, labels, stats, _ = components(mask, 8)
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 5)
    r = max(1, int(spacing * piece_px / 2))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    H, W = mask.shape
    out = []
    for i in range(1, n_lab):
        x0, y0, w, h, a = stats[i]
        if a < min_area * expected_area or a > max_blob * expected_area:
            continue
        sub = labels[y0 : y0 + h, x0 : x0 + w] == i
        # Local maxima of the distance transform, dilated over the blob's box and r around
        # it only (the same values there as over the whole mask, for less work)
        bx0, by0 = max(x0 - r, 0), max(y0 - r, 0)
        dil = cv2.dilate(dist[by0 : min(y0 + h + r, H), bx0 : min(x0 + w + r, W)], disc)
        d = dist[y0 : y0 + h, x0 : x0 + w]
        peaks = (d >= dil[y0 - by0 : y0 - by0 + h, x0 - bx0 : x0 - bx0 + w] - 1e-3) & \
            (d >= peak_min * piece_px)
        ys, xs = np.nonzero(peaks & sub)
        if len(xs) == 0:
            py, px = np.unravel_index(np.argmax(dist[y0 : y0 + h, x0 : x0 + w] * sub), sub.shape)
            ys, xs = np.array([py]), np.array([px])
        # Greedy non-maximum suppression: strongest peaks first, then min spacing.
        vals = dist[y0 + ys, x0 + xs]
        order = np.argsort(-vals)
        chosen: list[tuple[float, float]] = []
        for j in order:
            p = (float(xs[j]), float(ys[j]))
            if all((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 >= (spacing * piece_px) ** 2
                   for q in chosen):
                chosen.append(p)
        # Never more peaks than the blob's area allows.
        most = max(1, int(round(a / expected_area + 0.25)))
        chosen = chosen[:most]
        pys, pxs = np.nonzero(sub)
        pts = np.stack([pxs, pys], axis=1)
        if len(chosen) == 1:
            groups = [pts]
        else:
            c = np.array(chosen)
            d2 = ((pts[:, None, :] - c[None]) ** 2).sum(axis=2)
            near = d2.argmin(axis=1)
            groups = [pts[near == j] for j in range(len(chosen))]
        for g in groups:
            if len(g) >= min_area * expected_area:
                out.append(g + np.array([x0, y0]))
    return out


def convex_blobs(mask: np.ndarray) -> np.ndarray:
    """uint8 {0, 1} mask with each outer blob replaced by its convex hull (a tile whose
    drawing reaches its edge leaves a notch no hole filling closes)."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = mask.copy()  # (a blob of 1 or 2 outline points, a pixel or a straight run of
    #                    them, is its own hull: most of a look's specks, left as they are)
    for c in contours:
        if len(c) > 2:
            cv2.fillConvexPoly(out, cv2.convexHull(c), 1)
    return out


def kept_mask(groups: list, shape) -> np.ndarray:
    """uint8 {0, 1} mask of the pixels of `split_peaks`' groups (the first look's pieces)."""
    out = np.zeros(shape, np.uint8)
    for g in groups:
        out[g[:, 1], g[:, 0]] = 1
    return out


def taken(groups: list, mask: np.ndarray, beside_taken: bool) -> np.ndarray:
    """uint8 {0, 1} mask a later look keeps away from: the pieces found so far (`groups`,
    pixel arrays), and with `beside_taken` off every blob of the first look's `mask` too
    (the scraps it dropped as well)."""
    seen = kept_mask(groups, mask.shape)
    if not beside_taken:
        seen |= mask
    return seen


def lone_blobs(low: np.ndarray, mask: np.ndarray, size: float, piece_area: float,
               area_range: tuple[float, float], side_range: tuple[float, float],
               fill: float) -> list:
    """Blobs of the uint8 mask `low` that touch no blob of the first look's `mask` and look
    like one piece: area within `area_range` x `piece_area`, minAreaRect sides within
    `side_range` x `size`, at least `fill` of that rectangle covered. Returns (N_i, 2) int
    (x, y) pixel arrays like `split_peaks`."""
    n, labels, stats, _ = components(low, 8)
    out = []
    a_all = stats[:, cv2.CC_STAT_AREA]
    ok = (a_all >= area_range[0] * piece_area) & (a_all <= area_range[1] * piece_area)
    for i in np.flatnonzero(ok[1:]) + 1:
        x0, y0, w, h, a = stats[i]
        sub = labels[y0 : y0 + h, x0 : x0 + w] == i
        if (mask[y0 : y0 + h, x0 : x0 + w][sub] > 0).any():  # the first look saw it
            continue
        ys, xs = np.nonzero(sub)
        pts = np.stack([xs + x0, ys + y0], axis=1)
        _, (rw, rh), _ = cv2.minAreaRect(pts.astype(np.float32))
        if not (side_range[0] * size <= min(rw, rh) and max(rw, rh) <= side_range[1] * size):
            continue
        if a < fill * rw * rh:
            continue
        out.append(pts)
    return out


def off_arena(m: np.ndarray, arena: tuple[int, int]) -> np.ndarray:
    """The bool (V, V) mask `m` as uint8 {0, 1}, cleared on the arena's square `arena`
    (a0, a1) and 2 pixels around it (the looks outside the arena)."""
    a0, a1 = arena
    out = m.astype(np.uint8)
    out[max(a0 - 2, 0) : a1 + 2, max(a0 - 2, 0) : a1 + 2] = 0
    return out


def low_contrast_tiles(diff: np.ndarray, valid: np.ndarray, mask: np.ndarray,
                       arena: tuple[int, int], t: float, settings: TileSettings) -> list:
    """Tiles outside the arena that differ little from the table: blobs of `diff > low_diff`
    (float32 (V, V), `two_tone_diffs` or `background_diff`) away from the arena's square
    `arena` (a0, a1)
    and from the first mask's blobs (uint8 `mask`), kept only when alone, filled and square
    of a tile's size. Returns (N_i, 2) int (x, y) pixel arrays like `split_peaks`."""
    low = off_arena((diff > settings.low_diff) & valid, arena)
    k3 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    low = cv2.morphologyEx(low, cv2.MORPH_OPEN, k3)
    low = fill_holes(cv2.morphologyEx(low, cv2.MORPH_CLOSE, k3), 0.6 * t * t)
    low = cv2.morphologyEx(low, cv2.MORPH_OPEN, k3, iterations=2)
    return lone_blobs(low, mask, t, t * t, settings.low_area, settings.low_side,
                      settings.low_fill)


def faint_tiles(diff: np.ndarray, valid: np.ndarray, mask: np.ndarray, groups: list,
                arena: tuple[int, int], t: float, settings: TileSettings) -> list:
    """Tiles fainter still than the second look's: at each of `faint_levels`,
    `low_contrast_tiles` with the stricter `faint_*` square limits, away from the pieces
    found so far (`groups`, and the first mask's blobs where `low_beside_taken` is off).
    Returns pixel arrays like `split_peaks`."""
    found: list = []
    seen = taken(groups, mask, settings.low_beside_taken)
    for level in settings.faint_levels:
        new = low_contrast_tiles(
            diff, valid, seen, arena, t,
            replace(settings, low_diff=level, low_area=settings.faint_area,
                    low_side=settings.faint_side, low_fill=settings.faint_fill))
        for g in new:  # (`taken` of all found so far, grown by this level's tiles)
            seen[g[:, 1], g[:, 0]] = 1
        found += new
    return found


def trim_scraps(g: np.ndarray, disc: float) -> np.ndarray:
    """The (N, 2) int (x, y) pixels of one blob opened with a disc of `disc` pixels across,
    its largest part (thin scraps joined to a piece cut off); `g` itself when nothing
    is left."""
    x0, y0 = g.min(axis=0)
    w, h = g.max(axis=0) - (x0, y0) + 1
    m = np.zeros((h, w), np.uint8)
    m[g[:, 1] - y0, g[:, 0] - x0] = 1
    k = max(3, int(round(disc)) | 1)
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN,
                         cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
    if n < 2:
        return g
    ys, xs = np.nonzero(labels == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA])))
    return np.stack([xs + x0, ys + y0], axis=1)


def outline_tiles(lightness: np.ndarray, valid: np.ndarray, mask: np.ndarray, groups: list,
                  arena: tuple[int, int], t: float, settings: TileSettings) -> list:
    """Tiles outside the arena seen only by their outline: thin lines darker than their
    surroundings by `outline_level` (black-hat of the float32 (V, V) `lightness`) whose
    closed shapes, filled, are lone tile-sized squares (the `outline_*` limits) away from the
    pieces found so far (`groups`, and the first `mask`'s blobs where `low_beside_taken` is
    off). Returns pixel arrays like `split_peaks`."""
    k = max(3, int(round(settings.outline_line * t)) | 1)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    lines = cv2.morphologyEx(lightness, cv2.MORPH_BLACKHAT, disc) > settings.outline_level
    ring = off_arena(lines & valid, arena)
    k3 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    filled = convex_blobs(cv2.morphologyEx(ring, cv2.MORPH_CLOSE, k3))
    seen = taken(groups, mask, settings.low_beside_taken)
    return lone_blobs(filled, seen, t, t * t, settings.outline_area, settings.outline_side,
                      settings.outline_fill)


def edge_tiles(image_bgr: np.ndarray, area: PlayArea, settings: TileSettings) -> Candidates:
    """Tile candidates outside the arena, up to `edge_margin` arena sides beyond it: regions
    enclosed by edges (Canny on each Lab channel of the top-down view) that are tile-sized
    squares (the `edge_*` limits). The game's last look where fewer tiles were seen than it
    has: a tile far out, or a white tile on a white table whose colour says nothing but
    whose cut edge closes a square. Table checks of a tile's size pass too, so the caller
    keeps only candidates the classifier is very sure of. Plane pixels, like `find_tiles`."""
    if settings.edge_margin <= 0:
        return Candidates.empty()
    t = settings.piece_px
    view, valid, T = rectified_view(image_bgr, area, t / settings.size_mm, settings.edge_margin)
    lab = cv2.cvtColor(view, cv2.COLOR_BGR2LAB)
    lo, hi = settings.edge_canny
    edges = np.zeros(view.shape[:2], np.uint8)
    for c in range(3):
        edges |= cv2.Canny(cv2.GaussianBlur(lab[..., c], (3, 3), 0), lo, hi)
    edges[~valid] = 255  # (the photo's own border closes nothing)
    free = (cv2.dilate(edges, np.ones((2, 2), np.uint8)) == 0).astype(np.uint8)
    grow = 2.0  # the dilation's 2 px back
    a_lo, a_hi = (a * t * t for a in settings.edge_area)
    s_lo, s_hi = (s * t for s in settings.edge_side)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(free, connectivity=4)
    boxes = []
    for i in np.flatnonzero((stats[:, cv2.CC_STAT_AREA] >= a_lo) &
                            (stats[:, cv2.CC_STAT_AREA] <= a_hi)):
        if i == 0:
            continue
        x, y, w, h = stats[i, :4]
        part = (labels[y : y + h, x : x + w] == i).astype(np.uint8)
        contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        hull = cv2.convexHull(max(contours, key=cv2.contourArea) + np.array([x, y]))
        (cx, cy), (rw, rh), ang = cv2.minAreaRect(hull)
        if rw < 1 or rh < 1 or cv2.contourArea(hull) < settings.edge_fill * rw * rh:
            continue
        rw, rh = rw + grow, rh + grow
        if min(rw, rh) < s_lo or max(rw, rh) > s_hi:
            continue
        if _on_arena(area, T, cx, cy):
            continue
        boxes.append((cx, cy, max(rw, rh), ang))
    return square_candidates(T, boxes)


def _square_kernel(side: float, angle_deg: float) -> np.ndarray:
    """A float32 kernel of a 3-px-wide square outline of `side` turned by `angle_deg`,
    scaled so that a closed 1-px line all round scores 1."""
    r = int(np.ceil(side * 0.75)) + 2
    yy, xx = np.mgrid[-r : r + 1, -r : r + 1].astype(np.float32)
    ca, sa = np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))
    u, v = ca * xx + sa * yy, -sa * xx + ca * yy
    k = (np.abs(np.maximum(np.abs(u), np.abs(v)) - side / 2) <= 1.0).astype(np.float32)
    return k / (k.sum() / 3.0)


def strongest_gradient(lab: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gx, gy, squared magnitude), float32 (H, W) each: at each pixel the Sobel gradient of
    whichever of the (H, W, 3) image's channels (Lab, uint8 or float32) changes most there."""
    gx = np.zeros(lab.shape[:2], np.float32)
    gy, g2 = gx.copy(), gx.copy()
    for c in range(3):
        sx = cv2.Sobel(lab[..., c], cv2.CV_32F, 1, 0)
        sy = cv2.Sobel(lab[..., c], cv2.CV_32F, 0, 1)
        m2 = sx * sx + sy * sy
        stronger = m2 > g2
        np.copyto(gx, sx, where=stronger)
        np.copyto(gy, sy, where=stronger)
        np.copyto(g2, m2, where=stronger)
    return gx, gy, g2


def outline_squares(image_bgr: np.ndarray, area: PlayArea, settings: TileSettings
                    ) -> Candidates:
    """Tile candidates outside the arena, up to `edge_margin` arena sides beyond it, where
    edges draw a tile-sized square: Canny edges of each Lab channel in a top-down view
    (a tile `square_px` across), binned by their gradient's angle (mod 90 degrees) and
    correlated with a square outline at each bin's angle; the local peaks scoring at least
    `square_min`, strongest first (at most `square_most`). Unlike `edge_tiles` it needs no
    closed outline and no free inside. Plane pixels."""
    if settings.edge_margin <= 0 or settings.square_min <= 0:
        return Candidates.empty()
    t = settings.square_px
    view, valid, T = rectified_view(image_bgr, area, t / settings.size_mm, settings.edge_margin)
    rows, cols = np.flatnonzero(valid.any(axis=1)), np.flatnonzero(valid.any(axis=0))
    if not len(rows):
        return Candidates.empty()
    y0, x0 = rows[0], cols[0]  # (only the part the photo shows)
    view, valid = view[y0 : rows[-1] + 1, x0 : cols[-1] + 1], valid[y0 : rows[-1] + 1,
                                                                  x0 : cols[-1] + 1]
    lab = cv2.cvtColor(view, cv2.COLOR_BGR2LAB)
    h, w = view.shape[:2]
    edges = np.zeros((h, w), bool)
    lo, hi = settings.edge_canny
    for c in range(3):
        edges |= cv2.Canny(lab[..., c], lo, hi) > 0
    gx, gy, _ = strongest_gradient(lab)  # (each edge pixel's angle from its strongest channel)
    edges &= valid
    nb = settings.square_bins
    step = 90.0 / nb
    bins = np.round((np.degrees(np.arctan2(gy, gx)) % 90.0) / step).astype(np.int32) % nb
    best = np.zeros((h, w), np.float32)
    best_bin = np.zeros((h, w), np.int32)
    near_bins = []
    for b in range(nb):  # (a bin with its two neighbours: the angles between bins)
        near = edges & ((bins == b) | (bins == (b + 1) % nb) | (bins == (b - 1) % nb))
        near_bins.append(near)
        score = cv2.filter2D(near.astype(np.float32), -1, _square_kernel(t, b * step),
                             borderType=cv2.BORDER_CONSTANT)
        np.copyto(best_bin, b, where=score > best)
        np.maximum(best, score, out=best)
    k = int(t * 0.6) | 1
    peaks = (best >= settings.square_min) & (best >= cv2.dilate(best, np.ones((k, k), np.uint8)))
    ys, xs = np.nonzero(peaks)
    on_arena = _on_arena(area, T, xs + x0, ys + y0)
    xs, ys = xs[~on_arena], ys[~on_arena]
    drawn = _sides_drawn(np.stack(near_bins), best_bin[ys, xs], xs, ys, t, step)
    ok = np.flatnonzero(drawn.min(axis=1) >= settings.square_side_min)
    ok = ok[np.argsort(-best[ys[ok], xs[ok]])][: settings.square_most]
    return square_candidates(T, [(float(xs[i] + x0), float(ys[i] + y0), t,
                                  float(best_bin[ys[i], xs[i]] * step)) for i in ok])


def _sides_drawn(masks: np.ndarray, bins: np.ndarray, xs: np.ndarray, ys: np.ndarray,
                 side: float, step: float, samples: int = 12) -> np.ndarray:
    """(P, 4) share of each side of P squares (centre xs, ys; `side`; turned by bins * step
    degrees) that lies within 1 px of its bin's edges (`masks`, (B, H, W) bool), from
    `samples` points along each side's middle 80 %."""
    ang = np.radians(bins * step)
    u = np.stack([np.cos(ang), np.sin(ang)], axis=1)  # (P, 2)
    v = np.stack([-u[:, 1], u[:, 0]], axis=1)
    along = np.linspace(-0.4, 0.4, samples) * side
    normal = np.stack([u, -u, v, -v], axis=1)  # (P, 4, 2)
    tangent = np.stack([v, v, u, u], axis=1)
    pts = (np.stack([xs, ys], axis=1)[:, None, None] + normal[:, :, None] * side / 2 +
           along[None, None, :, None] * tangent[:, :, None])  # (P, 4, S, 2)
    _, h, w = masks.shape
    grown = np.stack([cv2.dilate(m.astype(np.uint8), np.ones((3, 3), np.uint8)) for m in masks])
    x = np.clip(np.round(pts[..., 0]).astype(int), 0, w - 1)
    y = np.clip(np.round(pts[..., 1]).astype(int), 0, h - 1)
    return (grown[bins[:, None, None], y, x] > 0).mean(axis=2)


def table_likeness(image_bgr: np.ndarray, area: PlayArea, cand: Candidates,
                   size: int = 24) -> np.ndarray:
    """(N,) float: how like the table beside it each candidate looks, as the smallest mean
    Lab difference between its square and the same square moved one or two of its sides
    along either of its axes (a table check or stripe of a tile's size repeats there; a
    tile does not). Low is table-like."""
    from vision.preprocess import CropSettings, extract_crops

    n = len(cand)
    if n == 0:
        return np.zeros(0)
    a = np.radians(cand.angles)
    axes = (np.stack([np.cos(a), np.sin(a)], axis=1), np.stack([-np.sin(a), np.cos(a)], axis=1))
    moved = [cand.centers] + [cand.centers + k * cand.sides[:, None] * ax
                              for k in (-2, -1, 1, 2) for ax in axes]
    squares = extract_crops(image_bgr, area.H_plane_to_img, np.concatenate(moved),
                            np.tile(cand.sides, len(moved)), np.tile(cand.angles, len(moved)),
                            CropSettings(size=size, margin=1.0, oversample=1, light_balance=0.0))
    lab = cv2.cvtColor(squares.reshape(-1, size, 3), cv2.COLOR_BGR2LAB).astype(np.float32)
    lab = lab.reshape(len(moved), n, size, size, 3)
    return np.abs(lab[1:] - lab[0]).mean(axis=(2, 3, 4)).min(axis=0).astype(np.float64)


def square_outline(image_bgr: np.ndarray, area: PlayArea, cand: Candidates,
                   settings: TileSettings, size: int = 64, margin: float = 1.6) -> np.ndarray:
    """(N, 4) float: for each candidate's square (plane pixels, `cand`'s centres, sides,
    angles) and each of its sides, the best share of points along the side's middle 80 %
    whose Lab gradient (uint8 BGR `image_bgr`, cut to a top-down crop of `size` px holding
    `margin` x the side) crosses the side: the strongest channel's Sobel component along
    the side's normal at least `drawn_grad` and within `drawn_angle` degrees of the
    gradient, over the side shifted by up to +-`drawn_reach` half sides and tilted by
    `drawn_tilts` degrees; a point off the photo draws nothing. A tile's cut edge draws
    its sides (0.5-1.0); a printed motif's round blob touches a straight line at a point
    (0.1-0.4)."""
    from vision.preprocess import CropSettings, crop_matrix, extract_crops

    n = len(cand)
    if n == 0:
        return np.zeros((0, 4))
    crop = CropSettings(size=size, margin=margin, oversample=1, light_balance=0.0)
    crops = extract_crops(image_bgr, area.H_plane_to_img, cand.centers, cand.sides,
                          cand.angles, crop)
    h_img, w_img = image_bgr.shape[:2]
    half = size / margin / 2  # the square's half side in crop pixels
    c0 = (size - 1) / 2
    along = np.linspace(-0.4, 0.4, 15) * 2 * half  # (A,)
    offs = half + np.arange(-settings.drawn_reach * half, settings.drawn_reach * half + 1e-9)
    base = np.radians(np.array([0.0, 180.0, 90.0, 270.0]))  # the four sides' normals
    tilt = np.radians(np.asarray(settings.drawn_tilts, np.float64))
    a = base[:, None] + tilt[None]  # (4, T)
    nx, ny = np.cos(a), np.sin(a)
    # (4, T, D, A) sample points: centre + normal * offset + tangent * along
    px = c0 + nx[..., None, None] * offs[:, None] - ny[..., None, None] * along
    py = c0 + ny[..., None, None] * offs[:, None] + nx[..., None, None] * along
    xi = np.clip(np.round(px).astype(np.int32), 0, size - 1)
    yi = np.clip(np.round(py).astype(np.int32), 0, size - 1)
    nxb, nyb = nx[..., None, None], ny[..., None, None]
    cos_tol = np.cos(np.radians(settings.drawn_angle))
    uv1 = np.stack([px.ravel(), py.ravel(), np.ones(px.size)])  # (3, P) crop pixels
    out = np.empty((n, 4))
    for i in range(n):
        # a point off the photo (or on its outermost 2 px) draws nothing: the crop repeats
        # the photo's border there, and a motif cut by it draws straight streaks
        M = np.asarray(area.H_plane_to_img, np.float64) @ crop_matrix(
            cand.centers[i], float(cand.sides[i]), float(cand.angles[i]), crop)
        q = M @ uv1
        qx, qy = q[0] / q[2], q[1] / q[2]
        inside = ((qx >= 2) & (qx <= w_img - 3) & (qy >= 2) & (qy <= h_img - 3)).reshape(
            px.shape)
        lab = cv2.cvtColor(crops[i], cv2.COLOR_BGR2LAB).astype(np.float32)
        gx, gy, g2 = strongest_gradient(lab)
        proj = np.abs(gx[yi, xi] * nxb + gy[yi, xi] * nyb)
        ok = (proj >= settings.drawn_grad) & (proj >= cos_tol * np.sqrt(g2[yi, xi])) & inside
        out[i] = ok.mean(axis=-1).reshape(4, -1).max(axis=1)
    return out


def outlined(image_bgr: np.ndarray, area: PlayArea, cand: Candidates,
             settings: TileSettings) -> np.ndarray:
    """(N,) bool: candidates whose square's four sides' mean share (`square_outline`)
    reaches `settings.drawn_min`: drawn as a tile's cut edge is."""
    shares = square_outline(image_bgr, area, cand, settings)
    return shares.mean(axis=1) >= settings.drawn_min if len(shares) else np.zeros(0, bool)


def _on_arena(area: PlayArea, T: np.ndarray, x, y):
    """Whether view point(s) (x, y) of a view with plane -> view matrix `T` lie on the arena
    or its walls (5 % of its side around it): the first looks' part, not the last look's."""
    s_view = area.settings.plane_px * T[0, 0]
    o = T[0, 2]
    return ((o - 0.05 * s_view < x) & (x < o + 1.05 * s_view) &
            (o - 0.05 * s_view < y) & (y < o + 1.05 * s_view))


def square_candidates(T: np.ndarray, boxes: list) -> Candidates:
    """Square tile candidates in plane pixels from (cx, cy, side, angle) boxes in the view
    whose plane -> view matrix is `T`."""
    if not boxes:
        return Candidates.empty()
    centers, sides, angles, polys = [], [], [], []
    for cx, cy, side, ang in boxes:
        c = _to_plane(T, [[cx, cy]])[0]
        side_plane = side / T[0, 0]
        centers.append(c)
        sides.append(side_plane)
        angles.append(float(ang))
        polys.append(square(c, side_plane, ang))
    return Candidates(np.array(centers), np.array(sides), np.array(angles), tuple(polys))


def square(center: np.ndarray, side: float, angle_deg: float) -> np.ndarray:
    """The (4, 2) corners of a square of `side` turned by `angle_deg` around `center`."""
    ca, sa = np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))
    half = side / 2
    local = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    return center + local @ np.array([[ca, -sa], [sa, ca]]).T


def _to_plane(T: np.ndarray, pts: np.ndarray) -> np.ndarray:
    k, off = T[0, 0], T[0, 2]
    return (np.asarray(pts, np.float64) - off) / k


def find_tiles(image_bgr: np.ndarray, area: PlayArea, settings: TileSettings) -> Candidates:
    """Square tile candidates in and around the arena (plane pixels)."""
    px_per_mm = settings.piece_px / settings.size_mm
    view, valid, T = rectified_view(image_bgr, area, px_per_mm, settings.margin)
    t = settings.piece_px
    s_view = area.settings.plane_px * T[0, 0]  # the arena's square in the view
    o = T[0, 2]
    ins = settings.red_inset * s_view
    a0, a1 = int(round(o + ins)), int(round(o + s_view - ins))
    view, valid, glare_zone = without_glare(view, valid, area, settings, (a0, a1))
    parts = background_lab(view, t)
    if settings.two_tone_sep > 0:
        # (the first look on the tones as first averaged; the fainter looks again without
        # the pixels unlike both: a refined tone also sharpens shadows, which the first
        # look would join to their tiles)
        maps = two_tone_diffs(parts, t, settings.two_tone_sep, refine=settings.two_tone_refine)
        diff, low_diff_map = maps[0], maps[-1]
    else:
        diff = background_diff(view, t, parts)
        low_diff_map = diff
    fg = diff > settings.bg_diff
    # Inside the arena: far from the arena's own colour (a smooth fit over the arena).
    inner = view[a0:a1, a0:a1]
    inner_lab = parts[0][a0:a1, a0:a1]  # (the view's Lab, made once)
    surface = arena_surface(inner, area, settings, inner_lab)
    if glare_zone is not None:
        surface |= washed_arena(inner_lab, surface, glare_zone[a0:a1, a0:a1], settings)
    local = shade_split_colour(inner_lab, surface, 1.5 * t, settings)
    sd = surface_diff(inner_lab, local, settings.arena_l_weight, settings.arena_b_weight)
    fg[a0:a1, a0:a1] = (sd > settings.arena_diff) | \
        (~surface & (sd > settings.arena_off_surface * settings.arena_diff))
    hue_tiles = None
    if settings.arena_hue_diff > 0:  # an orange tile on the red arena in dim light
        hue_tiles = np.zeros(fg.shape, np.uint8)
        hue_local = local
        if settings.arena_hue_refine > 0 and local is not None:
            off_hue = hue_diff(inner_lab, local, settings.arena_hue_chroma) > \
                settings.arena_hue_refine
            hue_local = surface_colour(inner_lab, surface & ~off_hue, 1.5 * t)
        hue_tiles[a0:a1, a0:a1] = \
            hue_diff(inner_lab, hue_local, settings.arena_hue_chroma) > settings.arena_hue_diff
    # Cut along the arena's edge: tiles inside never join the castle walls (again after the
    # closing, which would bridge the cut).
    cut = np.zeros(fg.shape, bool)
    cut[max(a0 - 2, 0) : a0, max(a0 - 2, 0) : a1 + 2] = True
    cut[a1 : a1 + 2, max(a0 - 2, 0) : a1 + 2] = True
    cut[max(a0 - 2, 0) : a1 + 2, max(a0 - 2, 0) : a0] = True
    cut[max(a0 - 2, 0) : a1 + 2, a1 : a1 + 2] = True
    mask = (fg & valid & ~cut).astype(np.uint8)
    k3 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, k3)
    mask = fill_holes(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, k3), 0.6 * t * t)
    mask[cut] = 0
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, k3, iterations=2)
    groups = split_peaks(mask, t, settings.peak_min, settings.peak_spacing, settings.min_area,
                         t * t, settings.max_blob)
    if settings.low_diff > 0:
        seen = taken(groups, mask, settings.low_beside_taken)
        groups += low_contrast_tiles(low_diff_map, valid, seen, (a0, a1), t, settings)
        if settings.faint_levels:
            groups += faint_tiles(low_diff_map, valid, mask, groups, (a0, a1), t, settings)
    if settings.outline_level > 0:
        groups += outline_tiles(parts[0][..., 0], valid, mask, groups, (a0, a1), t, settings)
    if hue_tiles is not None:  # lone tile-sized squares of another hue on the arena
        hue_tiles = cv2.morphologyEx(hue_tiles, cv2.MORPH_OPEN, k3)
        hue_tiles = convex_blobs(cv2.morphologyEx(hue_tiles, cv2.MORPH_CLOSE, k3))
        groups += lone_blobs(hue_tiles, kept_mask(groups, mask.shape), t, t * t,
                             settings.faint_area, settings.faint_side, settings.faint_fill)
    boxes = []
    for g in groups:
        (cx, cy), (w, h), ang = cv2.minAreaRect(g.astype(np.float32))
        if settings.trim_above > 0 and max(w, h) > settings.trim_above * t:
            g = trim_scraps(g, settings.trim_disc * t)
            (cx, cy), (w, h), ang = cv2.minAreaRect(g.astype(np.float32))
        if min(w, h) < 1 or max(w, h) / min(w, h) > settings.max_elongation:
            continue
        if max(w, h) > 2.2 * t:
            continue
        boxes.append((cx, cy, float(np.clip(max(w, h), 0.8 * t, 1.25 * t)), ang))
    return square_candidates(T, boxes)


def _looked(m: np.ndarray, inset: int) -> np.ndarray:
    """A later look's uint8 mask `m` less its `inset` border (in place), closed then opened
    (3 px)."""
    if inset:
        m[:inset], m[-inset:], m[:, :inset], m[:, -inset:] = 0, 0, 0, 0
    k3 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    return cv2.morphologyEx(cv2.morphologyEx(m, cv2.MORPH_CLOSE, k3), cv2.MORPH_OPEN, k3)


def tinted_marbles(dab: np.ndarray, valid: np.ndarray, inset: int, seen: np.ndarray,
                   settings: MarbleSettings) -> list:
    """Lone marble-sized blobs whose colour (a*, b*) lies `low_ab` from the cloth's local
    colour, at least `low_ab_noise` x the cloth's own 90th percentile of that distance, away
    from what the looks before took (`seen`, as `taken` gives it). `dab`: each pixel's a*b*
    distance from the cloth's local colour, float32 (V, V). Returns pixel arrays like
    `split_peaks`."""
    cloth = dab[::4, ::4][valid[::4, ::4]]
    noise = float(np.percentile(cloth, 90)) if cloth.size else 0.0
    tint = ((dab > max(settings.low_ab, settings.low_ab_noise * noise)) & valid).astype(np.uint8)
    tint = _looked(tint, inset)
    d = settings.piece_px
    return lone_blobs(tint, seen, d, np.pi * d * d / 4, settings.low_area, settings.low_side,
                      settings.low_fill)


def _cloth_grid_pixels(image_bgr: np.ndarray, area: PlayArea, n: int) -> np.ndarray:
    """(M, 3) uint8 BGR: `image_bgr` at a grid of `n` x `n` points over the cloth's inner
    part (0.08-0.92 of the plane), those that fall in the photo (`cloth_gains`,
    `cloth_tone`)."""
    g = np.linspace(0.08, 0.92, n) * area.settings.plane_px
    pts = np.stack(np.meshgrid(g, g), axis=-1).reshape(-1, 2)
    ip = np.round(area.to_image(pts)).astype(int)
    h, w = image_bgr.shape[:2]
    ok = (ip[:, 0] >= 0) & (ip[:, 0] < w) & (ip[:, 1] >= 0) & (ip[:, 1] < h)
    return image_bgr[ip[ok, 1], ip[ok, 0]]


def cloth_gains(settings: MarbleSettings, image_bgr: np.ndarray, area: PlayArea,
                gains: np.ndarray) -> np.ndarray:
    """(3,) float32 per-channel gains that take the cloth's remaining cast off crops already
    balanced by `gains` (the crops' usual light balance, `preprocess.light_gains`): the
    cloth's median colour (a grid of `cloth_grid` x `cloth_grid` points over its inner part;
    marbles cover little of it; clipped points left out, `cloth_clip`) times `gains`,
    brought to its own grey level by a power of the full correction that grows from 0 at a
    cast (brightest / darkest channel) of `cloth_cast[0]` to 1 at `cloth_cast[1]`. Ones
    where no point falls in the photo."""
    px = _cloth_grid_pixels(image_bgr, area, settings.cloth_grid)
    if not len(px):
        return np.ones(3, np.float32)
    unclipped = px.max(axis=1) < settings.cloth_clip
    if unclipped.sum() >= 0.1 * len(px):
        px = px[unclipped]
    cloth = np.median(px.astype(np.float32), axis=0) * gains
    cloth = np.maximum(cloth, 1.0)
    lo, hi = settings.cloth_cast
    part = float(np.clip((cloth.max() / cloth.min() - lo) / (hi - lo), 0.0, 1.0))
    return ((cloth.mean() / cloth) ** part).astype(np.float32)


def cloth_tone(settings: MarbleSettings, image_bgr: np.ndarray, area: PlayArea
               ) -> tuple[np.ndarray, np.ndarray]:
    """(exponents, pivots), each (3,) float32 (BGR): the power per channel about the
    cloth's median level (pivot, 0-255) that takes a lamp's per-channel tone curve off the
    uint8 BGR working photo `image_bgr`, as `MarbleSettings.tone_*` say (ones where the
    cloth's own shading cannot tell one, or the setting is off): `apply_tone`."""
    if settings.tone_dev[1] <= 0:
        return np.ones(3, np.float32), np.full(3, 128, np.float32)
    px = _cloth_grid_pixels(image_bgr, area, settings.tone_grid).astype(np.float32)
    px = px[(px.max(axis=1) < settings.cloth_clip) & (px.min(axis=1) > 3)]
    return tone_of_pixels(px, settings.tone_bins, settings.tone_span, settings.tone_dev)


def near_glare(image_bgr: np.ndarray, area: PlayArea, centers: np.ndarray,
               settings: MarbleSettings) -> np.ndarray | None:
    """(N,) bool: the marble candidates (`centers`, (N, 2) plane px) centred within
    `near_reach` x a glare spot's core (`glare_spots` on the uint8 BGR working photo
    `image_bgr`, with `MarbleSettings.glare_*`); None where no spot is found, none is asked
    for (`near_washed_dark` 0) or there is no candidate."""
    if settings.near_washed_dark <= 0 or not len(centers):
        return None
    g = replace(area.settings, glare_max_frac=settings.glare_max_frac,
                glare_rim=settings.glare_rim, glare_ring_max=settings.glare_ring_max)
    f = settings.glare_scale
    small = image_bgr if f >= 1.0 else cv2.resize(image_bgr, None, fx=f, fy=f,
                                                  interpolation=cv2.INTER_AREA)
    spots = glare_spots(small, g)
    if not spots:
        return None
    c = area.to_image(np.asarray(centers, np.float64).reshape(-1, 2)) * (small.shape[1]
                                                                         / image_bgr.shape[1])
    return near_glare_spots(c[:, 0], c[:, 1], spots, settings.near_reach)


def washed_crops(crops: np.ndarray, settings: MarbleSettings, margin: float = 1.3,
                 near: np.ndarray | None = None) -> np.ndarray:
    """(N, S, S, 3) uint8 BGR marble crops with a lamp's even added light taken off where
    their central disc (the piece: 1 / `margin` of the side, `CropSettings.margin`) is
    washed out, darker than the cloth around it, its dark the piece's (not a stripe's)
    (`MarbleSettings.washed_*`): in linear light, x -> (x - g) / (1 - g), g = the disc's
    darkest level less `washed_floor`. `near` ((N,) bool or None): the crops by a glare
    spot (`near_glare`), held to the looser `near_*` thresholds. The same array where no
    crop is changed, and for crops too small to hold a disc and a ring (S < 8)."""
    if settings.washed_dark <= 0 or not len(crops) or crops.shape[1] < 8:
        return crops
    n = crops.shape[1]
    yy, xx = np.mgrid[0:n, 0:n]
    r = np.hypot(xx - (n - 1) / 2, yy - (n - 1) / 2)
    low = np.minimum(np.minimum(crops[..., 0], crops[..., 1]), crops[..., 2])  # (min(axis=3)
    low = low.reshape(len(crops), -1)  # is slower) (N, S * S) the lowest channel, uint8
    in_disc = (r <= n / (2.0 * margin)).ravel()
    disc = low[:, in_disc]
    ring_low = low[:, (r >= settings.washed_ring * n).ravel()]
    if not disc.shape[1] or not ring_low.shape[1]:
        return crops
    k = int(settings.washed_pct / 100.0 * (disc.shape[1] - 1))  # (the order statistics:
    dark = LINEAR8[np.partition(disc, k, axis=1)[:, k]]  # a sort is the slow part)
    mid = ring_low.shape[1] // 2
    ring = LINEAR8[np.partition(ring_low, mid, axis=1)[:, mid]]
    g = dark - settings.washed_floor
    lo = np.full(len(crops), settings.washed_dark, np.float32)
    room = np.full(len(crops), settings.washed_room, np.float32)
    step = np.full(len(crops), settings.washed_contrast, np.float32)
    if near is not None and settings.near_washed_dark > 0:
        lo[near], room[near], step[near] = (settings.near_washed_dark, settings.near_room,
                                            settings.near_contrast)
    todo = np.flatnonzero((dark >= lo) & (1.0 - g >= room) & (ring - dark >= step))
    if len(todo) and settings.washed_ring_step > 0:  # (no stripe running on into the ring)
        q = int(settings.washed_ring_pct / 100.0 * (ring_low.shape[1] - 1))
        ring_dark = LINEAR8[np.partition(ring_low[todo], q, axis=1)[:, q]]
        todo = todo[ring_dark - dark[todo] >= settings.washed_ring_step]
    if not len(todo):
        return crops
    out = crops.copy()
    for i in todo:
        lin = LINEAR8[crops[i]]
        out[i] = np.round(255.0 * linear_to_srgb((lin - g[i]) / (1.0 - g[i])))
    return out


def glare_washed_tiles(crops: np.ndarray, centres_img: np.ndarray, spots,
                       settings: TileSettings) -> np.ndarray:
    """(N, S, S, 3) uint8 BGR tile crops with a lamp's white taken off those centred
    (`centres_img`, (N, 2) working-image px) within `crop_glare_reach` of a glare spot
    (`spots`: `vision.area.glare_spots`' tuples in working-image px): a lamp adds about the
    same light to every channel (linear light), and a tile's dark drawing or the arena's
    red beside it would have a lowest channel near 0 without it. The same array where no
    crop is changed."""
    if settings.crop_glare_reach <= 0 or not len(crops) or not spots:
        return crops
    c = np.asarray(centres_img, np.float64).reshape(-1, 2)
    near = near_glare_spots(c[:, 0], c[:, 1], spots, settings.crop_glare_reach)
    out = crops
    for i in np.flatnonzero(near):
        low = crops[i].min(axis=2)
        g = float(LINEAR8[int(np.percentile(low, settings.crop_glare_pct))]) - \
            settings.crop_glare_floor
        if g < settings.crop_glare_min:
            continue
        if out is crops:
            out = crops.copy()
        out[i] = np.round(255.0 * linear_to_srgb(np.clip(LINEAR8[crops[i]] - g,
                                                          0.0, 1.0)))
    return out


def marble_image(image_bgr: np.ndarray, area: PlayArea) -> np.ndarray:
    """The image the marbles are read on (looked for, cropped, coloured), from the working
    uint8 BGR photo (H, W, 3): an underexposed one (a dim room) brought up by one gain in
    linear light (`vision.area.exposed` with the area's own `expose_to`, `expose_pct`,
    `expose_max`: one setting for the cloth and the marbles), the photo itself otherwise.
    The one function for scoring (`Pipeline._pieces`), teach mode (`piece_examples`) and
    the classifier's training crops (`create_dataset.scene_crops`), so that each sees what
    the others see. (`find_area` measures its own gain on its reduced, glare-removed copy:
    on light_eval's dim copies the marbles' gain is 0.96-1.0 x the cloth's, median 0.99;
    carrying the cloth's gain here was tried, session 14: held-out 2 pieces worse.)
    The dim room: its pale marbles' Lab contrast had fallen under the
    looks' thresholds and its crops were darker than any the classifier learnt from;
    light_eval's dim committed copies 2.18 -> 0.44 % per piece once the area was found."""
    s = area.settings
    return exposed(image_bgr, s.expose_to, s.expose_pct, s.expose_max)


def marble_candidates(photo: Photo, area: PlayArea, settings: MarbleSettings
                      ) -> tuple[Photo, Candidates]:
    """(`photo` with its image the one the marbles are read on, `marble_image`; the marble
    candidates found on that image, `find_marbles`): the one step for scoring, teach mode
    and the training crops, which crop the marbles from the photo it gives."""
    photo = replace(photo, image=marble_image(photo.image, area))
    return photo, find_marbles(photo.image, area, settings)


def find_marbles(image_bgr: np.ndarray, area: PlayArea, settings: MarbleSettings) -> Candidates:
    """Marble candidates on the cloth (plane pixels; polygons None)."""
    px_per_mm = settings.piece_px / settings.size_mm
    view, valid, T = rectified_view(image_bgr, area, px_per_mm, 0.0)
    d = settings.piece_px
    lab8, bg8 = background_lab8(view, d)
    dl, da, db = lab_diff_planes(lab8, bg8)  # (background_diff's, once for every look)
    diff = _planes_dist(dl, da, db, BG_L_WEIGHT)
    mask = ((diff > settings.bg_diff) & valid).astype(np.uint8)
    shadow = dab = None
    if settings.shadow_ab > 0 or settings.low_ab > 0:
        # (np.hypot's numbers: whole-number differences, every sum of squares exact and
        #  its square root rounded once; tested over all of them)
        dab = da * da
        dab += db * db
        dab = np.sqrt(dab, out=dab)
    if settings.shadow_ab > 0:
        # (lab < bg - shadow_l: whole numbers, so exactly lab - bg < -shadow_l)
        shadow = (dl < -settings.shadow_l) & (dab < settings.shadow_ab)
        mask[shadow] = 0
    inset = int(round(settings.inset * view.shape[0]))
    if inset:
        mask[:inset], mask[-inset:], mask[:, :inset], mask[:, -inset:] = 0, 0, 0, 0
    k3 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, k3)
    mask = fill_holes(mask, settings.max_hole * d * d)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, k3)
    disc = np.pi * d * d / 4
    groups = split_peaks(mask, d, settings.peak_min, settings.peak_spacing, settings.min_area,
                         disc)
    if settings.low_diff > 0:
        low = ((diff > settings.low_diff) & valid).astype(np.uint8)
        if shadow is not None and settings.low_shadow:
            low[shadow] = 0
        low = _looked(low, inset)
        seen = taken(groups, mask, settings.low_beside_taken)
        groups += lone_blobs(low, seen, d, disc, settings.low_area, settings.low_side,
                             settings.low_fill)
    if settings.low_ab > 0:  # third look, on colour alone (tinted, hardly darker)
        groups += tinted_marbles(dab, valid, inset,
                                 taken(groups, mask, settings.low_beside_taken), settings)
    # Centre: chroma-weighted mean of the blob (the coloured glass, not its grey shadow or
    # white highlight).
    chroma = None
    if not settings.plain_centre:
        lab = lab8.astype(np.float32)  # the view's Lab, float32
        chroma = np.hypot(lab[..., 1] - 128, lab[..., 2] - 128)
    centers = []
    for g in groups:
        c = g.mean(axis=0) if settings.plain_centre else None
        if c is None:
            w = chroma[g[:, 1], g[:, 0]]
            w = np.maximum(w - np.percentile(w, 30), 0) + 1e-3
            c = (g * w[:, None]).sum(axis=0) / w.sum()
        # a marble's shadow split off as its own blob ends up on the same glass: one candidate
        if all(np.hypot(*(c - q)) > settings.merge * d for q in centers):
            centers.append(c)
    if not centers:
        return Candidates.empty()
    c = _to_plane(T, np.array(centers))
    side = d / T[0, 0]
    n = len(c)
    return Candidates(c, np.full(n, side), np.zeros(n), (None,) * n)
