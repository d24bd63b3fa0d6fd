//! TODO(helper W2): SVG plots drawn on the server (bars, time series, histograms).
