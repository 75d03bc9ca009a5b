package ssd1680

// SSD1680 commands used by this driver (datasheet names).
const (
	cmdDriverOutput      = 0x01 // gate count and scan direction
	cmdDeepSleep         = 0x10
	cmdDataEntryMode     = 0x11
	cmdSoftwareReset     = 0x12
	cmdTempSensor        = 0x18
	cmdMasterActivation  = 0x20 // run the display update sequence; BUSY goes high
	cmdUpdateControl1    = 0x21
	cmdUpdateControl2    = 0x22 // which update sequence 0x20 runs
	cmdWriteBlackRAM     = 0x24 // the new frame
	cmdWriteRedRAM       = 0x26 // the previous frame, for partial refresh
	cmdBorderWaveform    = 0x3C
	cmdRAMXRange         = 0x44
	cmdRAMYRange         = 0x45
	cmdRAMXCounter       = 0x4E
	cmdRAMYCounter       = 0x4F
	deepSleepKeepRAM     = 0x01 // deep sleep mode 1
	dataEntryXIncYInc    = 0x03
	tempSensorInternal   = 0x80
	borderFull           = 0x05 // border follows the LUT, full refresh
	borderPartial        = 0x80 // border held at VCOM during partial refresh
	sequenceFull         = 0xF7 // clock, analog on, load temperature and OTP waveform, display mode 1, off
	sequencePartial      = 0xFF // the same with display mode 2: drive only pixels that differ from RAM 0x26
	updateControlNormal  = 0x00 // RAM as written, no inversion
	updateControlSources = 0x80 // source outputs S8–S167
)

// Gate count minus one, little endian, as 0x01 and 0x45 want it.
const (
	lastGateLo = (NativeHeight - 1) & 0xFF
	lastGateHi = (NativeHeight - 1) >> 8
)
