/** The daily volume of successful payments as bars (uPlot, drawn on a canvas). */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatMoney } from '../../format';

/** Tick steps of the amount axis: whole base units, 1-2-5 from 1 to 5·10^12. */
const WHOLE_STEPS = Array.from({ length: 13 }, (_, power) => [1, 2, 5].map((m) => m * 10 ** power)).flat();

export function VolumeChart({ labels, volumes, currency, language, label }: { labels: string[]; volumes: number[]; currency: string; language: string; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    // The API's days are the reader's (labels AAAA-MM-JJ): placed at their UTC midnights, in
    // seconds (uPlot's time unit), and labelled by their date, read in UTC so no zone shifts it.
    const xs = labels.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
    const short = new Intl.DateTimeFormat(language, { day: 'numeric', month: 'short', timeZone: 'UTC' });
    const bars = uPlot.paths.bars!({ size: [0.7, 40] });
    const plot = new uPlot(
      {
        width: element.clientWidth,
        height: 200,
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: true, range: [xs[0]! - 43_200, xs[xs.length - 1]! + 43_200] }, y: { range: (_u, _min, max) => [0, Math.max(max * 1.1, 1000)] } },
        axes: [
          {
            // One label a day, thinned to what fits (about 56 px a label).
            splits: (u) => {
              const step = Math.ceil(xs.length / Math.max(1, Math.floor(u.bbox.width / devicePixelRatio / 56)));
              return xs.filter((_, i) => (xs.length - 1 - i) % step === 0);
            },
            values: (_u, ticks) => ticks.map((tick) => short.format(new Date(tick * 1000))),
            stroke: '#3b4a45',
            grid: { show: false },
          },
          { incrs: WHOLE_STEPS, values: (_u, ticks) => ticks.map((tick) => formatMoney(tick, currency, language)), size: 90, stroke: '#3b4a45', grid: { stroke: '#e3e8e6' } },
        ],
        series: [{}, { fill: '#0a6e4f', stroke: '#0a6e4f', paths: bars, points: { show: false } }],
      },
      [xs, volumes],
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: 200 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [labels, volumes, currency, language]);
  return <div ref={box} className="chart" role="img" aria-label={label} />;
}
